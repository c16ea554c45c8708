/**
 * VectorIndex over sqlite-vec: a vec0 KNN query per shard with the filters inside it
 * (vector-repo.ts), the shards' answers merged, then the heads of the chunks found, which
 * leaves out chunks not visible while a big file is staged.
 */
import type { ChunkHead } from '../../domain/chunks.js'
import type { Neighbour, VectorIndex } from '../port.js'
import type { VectorRepo } from './vector-repo.js'

export function createVec0Index(repo: Pick<VectorRepo, 'knn'>, heads: (ids: number[]) => ChunkHead[]): VectorIndex {
  return {
    nearest(vector, k, filters, shards) {
      if (k <= 0) return []
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
    },
  }
}
