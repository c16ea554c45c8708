/**
 * Vector retrieval on one connection. With sqlite-vec, a vec0 KNN query with the filters in
 * it. Without it, an exact cosine scan over all vectors held in memory (loaded on first use
 * and again whenever the index changed): correct at any size, but memory grows with the
 * index (dims × 4 bytes per chunk) and every change reloads it, so it suits small and
 * medium workspaces. vectorScore = 1 − cosine distance, clamped to [0, 1].
 */
import { dot } from '../domain/vectors.js'
import type { IndexStore } from '../store/index-store.js'
import { passesFilters, type ChunkFilters, type ChunkHead } from '../domain/chunks.js'
import { shardOf } from '../store/vector-repo.js'

/** A chunk found by vector search, with its similarity in [0, 1]. */
export type VectorHit = ChunkHead & { vectorScore: number }

type Loaded = { generation: number; heads: ChunkHead[]; matrix: Float32Array; dims: number }

const clamp01 = (x: number) => Math.min(1, Math.max(0, x))

export function createVectorSearch(
  store: Pick<IndexStore, 'vectors' | 'knn' | 'allVectors' | 'chunkHeads' | 'generation'>,
) {
  let loaded: Loaded | null = null

  function load(): Loaded {
    const generation = store.generation()
    if (loaded?.generation === generation) return loaded
    const rows = store.allVectors()
    const dims = store.vectors?.dims ?? 0
    const byId = new Map(store.chunkHeads(rows.map((r) => r.id)).map((h) => [h.id, h]))
    const heads: ChunkHead[] = []
    const matrix = new Float32Array(rows.length * dims)
    for (const row of rows) {
      const head = byId.get(row.id)
      if (!head) continue
      matrix.set(new Float32Array(row.embedding.buffer, row.embedding.byteOffset, dims), heads.length * dims)
      heads.push(head)
    }
    loaded = { generation, heads, matrix, dims }
    return loaded
  }

  function scan(
    vector: Float32Array,
    limit: number,
    filters: ChunkFilters,
    shards: ReadonlySet<number> | null,
  ): VectorHit[] {
    const { heads, matrix, dims } = load()
    const shardCount = store.vectors?.shards ?? 1
    const best: VectorHit[] = []
    for (let i = 0; i < heads.length; i++) {
      const head = heads[i] as ChunkHead
      if (!passesFilters(head, filters) || (shards && !shards.has(shardOf(head.id, shardCount)))) continue
      const score = dot(vector, matrix.subarray(i * dims, (i + 1) * dims))
      if (best.length < limit || score > (best[best.length - 1] as VectorHit).vectorScore) {
        best.push({ ...head, vectorScore: score })
        best.sort((a, b) => b.vectorScore - a.vectorScore || a.id - b.id)
        if (best.length > limit) best.pop()
      }
    }
    return best.map((h) => ({ ...h, vectorScore: clamp01(h.vectorScore) }))
  }

  /**
   * The `limit` chunks nearest to `vector` that pass the filters, nearest first; only in the
   * given shards when `shards` is set (the pool splits one search over several workers).
   */
  function search(
    vector: Float32Array,
    limit: number,
    filters: ChunkFilters,
    shards?: readonly number[],
  ): VectorHit[] {
    if (!store.vectors || limit <= 0) return []
    if (store.vectors.backend === 'scan') return scan(vector, limit, filters, shards ? new Set(shards) : null)
    const found = shards
      ? shards
          .flatMap((shard) => store.knn(vector, limit, filters, shard))
          .sort((a, b) => a.distance - b.distance || a.id - b.id)
          .slice(0, limit)
      : store.knn(vector, limit, filters)
    const heads = new Map(store.chunkHeads(found.map((f) => f.id)).map((h) => [h.id, h]))
    const hits: VectorHit[] = []
    for (const { id, distance } of found) {
      const head = heads.get(id)
      if (head) hits.push({ ...head, vectorScore: clamp01(1 - distance) })
    }
    return hits
  }

  return { search }
}
