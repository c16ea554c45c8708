/**
 * Vector retrieval: the store's nearest chunks (store/port.ts VectorIndex: sqlite-vec KNN,
 * an exact scan, or pgvector) scored by similarity: vectorScore = 1 − cosine distance,
 * clamped to [0, 1].
 */
import type { ChunkFilters } from '../domain/chunks.js'
import type { VectorHit } from '../store/index-reader.js'
import type { VectorIndex } from '../store/port.js'

/** A chunk found by vector search, with its similarity in [0, 1]. */
const clamp01 = (x: number) => Math.min(1, Math.max(0, x))

export function createVectorSearch(store: VectorIndex) {
  /**
   * The `limit` chunks nearest to `vector` that pass the filters, nearest first; only in the
   * given shards when `shards` is set (the pool splits one search over several workers).
   */
  async function search(
    vector: Float32Array,
    limit: number,
    filters: ChunkFilters,
    shards?: readonly number[],
  ): Promise<VectorHit[]> {
    if (limit <= 0) return []
    const found = await store.nearest(vector, limit, filters, shards)
    return found.map(({ distance, ...head }) => ({ ...head, vectorScore: clamp01(1 - distance) }))
  }

  return { search }
}
