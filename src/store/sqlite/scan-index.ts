/**
 * VectorIndex by exact cosine scan over every vector, held in memory (dims × 4 bytes per
 * chunk), loaded on first use and again whenever the index changed. Correct at any size,
 * but memory grows with the index and every change reloads it, so it suits small and
 * medium workspaces (the `scan` backend, when sqlite-vec cannot load).
 */
import { passesFilters, type ChunkHead } from '../../domain/chunks.js'
import { dot } from '../../domain/vectors.js'
import type { Neighbour, VectorIndex } from '../port.js'
import { shardOf } from './vector-repo.js'

export type ScanSource = {
  /** Every stored vector (float32 bytes). */
  all(): { id: number; embedding: Buffer }[]
  /** Heads of visible chunks by id. */
  heads(ids: number[]): ChunkHead[]
  /** Changes whenever the index changed: the loaded vectors are stale then. */
  generation(): number
  dims: number
  shards: number
}

type Loaded = { generation: number; heads: ChunkHead[]; matrix: Float32Array }

export function createScanIndex(src: ScanSource): VectorIndex {
  let loaded: Loaded | null = null

  function load(): Loaded {
    const generation = src.generation()
    if (loaded?.generation === generation) return loaded
    const rows = src.all()
    const byId = new Map(src.heads(rows.map((r) => r.id)).map((h) => [h.id, h]))
    const heads: ChunkHead[] = []
    const matrix = new Float32Array(rows.length * src.dims)
    for (const row of rows) {
      const head = byId.get(row.id)
      if (!head) continue
      matrix.set(new Float32Array(row.embedding.buffer, row.embedding.byteOffset, src.dims), heads.length * src.dims)
      heads.push(head)
    }
    loaded = { generation, heads, matrix }
    return loaded
  }

  return {
    nearest(vector, k, filters, shards) {
      if (k <= 0) return []
      const { heads, matrix } = load()
      const only = shards ? new Set(shards) : null
      const { dims } = src
      // Kept sorted by similarity, best first, at most k long.
      const best: (ChunkHead & { similarity: number })[] = []
      for (let i = 0; i < heads.length; i++) {
        const head = heads[i] as ChunkHead
        if (!passesFilters(head, filters) || (only && !only.has(shardOf(head.id, src.shards)))) continue
        const similarity = dot(vector, matrix.subarray(i * dims, (i + 1) * dims))
        if (best.length < k || similarity > (best[best.length - 1] as { similarity: number }).similarity) {
          best.push({ ...head, similarity })
          best.sort((a, b) => b.similarity - a.similarity || a.id - b.id)
          if (best.length > k) best.pop()
        }
      }
      return best.map(({ similarity, ...head }): Neighbour => ({ ...head, distance: 1 - similarity }))
    },
  }
}
