/**
 * VectorIndex over sqlite-vec: a vec0 KNN query per shard with the filters inside it
 * (vector-repo.ts), the shards' answers merged, then the heads of the chunks found, which
 * leaves out chunks not visible while a big file is staged.
 *
 * Current facts only (the default, issue 31): a KNN scan is a full scan whatever `k`, and
 * reading the status metadata of every row made a hybrid search 11 % slower with 30 % of the
 * entries superseded. So the scan runs without the status filter for twice the neighbours,
 * and the superseded ones are dropped from their heads; only when too few are left does the
 * scan run again with the filter inside it.
 */
import type { ChunkFilters, ChunkHead } from '../../domain/chunks.js'
import type { Neighbour, VectorIndex } from '../port.js'
import type { VectorRepo } from './vector-repo.js'

export function createVec0Index(repo: Pick<VectorRepo, 'knn'>, heads: (ids: number[]) => ChunkHead[]): VectorIndex {
  /** The `k` nearest passing `filters` over the given shards (or all), with their heads. */
  function scan(vector: Float32Array, k: number, filters: ChunkFilters, shards?: readonly number[]): Neighbour[] {
    const found = shards
      ? shards
          .flatMap((shard) => repo.knn(vector, k, filters, shard))
          .sort((a, b) => a.distance - b.distance || a.id - b.id)
          .slice(0, k)
      : repo.knn(vector, k, filters)
    const byId = new Map(heads(found.map((f) => f.id)).map((h) => [h.id, h]))
    const out: Neighbour[] = []
    for (const { id, distance } of found) {
      const head = byId.get(id)
      if (head) out.push({ ...head, distance })
    }
    return out
  }

  return {
    nearest(vector, k, filters, shards) {
      if (k <= 0) return []
      if (filters.includeSuperseded) return scan(vector, k, filters, shards)
      const fetch = 2 * k + 8
      const near = scan(vector, fetch, { ...filters, includeSuperseded: true }, shards)
      const current = near.filter((n) => n.entry?.status !== 'superseded')
      if (current.length >= k || near.length < fetch) return current.slice(0, k)
      return scan(vector, k, filters, shards)
    },
  }
}
