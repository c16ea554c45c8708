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
 *
 * A search without filters may skip the scan (issue 35): the quantised copy of the vectors
 * (quantized-vectors.ts) names OVERSAMPLE × k candidates, whose exact distances come from
 * the stored float vectors; the scan runs when the copy does not apply, or when too few
 * candidates are still stored.
 */
import type { ChunkFilters, ChunkHead } from '../../domain/chunks.js'
import type { Neighbour, VectorIndex } from '../port.js'
import type { QuantizedVectors } from './quantized-vectors.js'
import type { VectorRepo } from './vector-repo.js'

/**
 * Candidates pre-selected per neighbour wanted. On the hash vectors of the benchmark
 * workspace (10,000 chunks, 100 queries) twice as many gave the exact scan's 24 nearest
 * every time; once as many missed 0.2 % of them.
 */
export const OVERSAMPLE = 2

type Found = { id: number; distance: number }
const nearestFirst = (a: Found, b: Found) => a.distance - b.distance || a.id - b.id

/** Filters the quantised copy cannot apply (it holds vectors only). */
const isUnfiltered = (f: ChunkFilters): boolean =>
  f.includeSuperseded === true && !f.source && !f.pathPrefix && !f.excludeMemoryFile && !f.dated && !f.origins

/** The quantised copy, and exact distances from the stored floats (vector-repo.ts floatCopy). */
export type Preselection = Pick<QuantizedVectors, 'candidates' | 'forget'> & {
  distances(vector: Float32Array, ids: readonly number[]): Found[]
}

export function createVec0Index(
  repo: Pick<VectorRepo, 'knn'>,
  heads: (ids: number[]) => ChunkHead[],
  quantized: Preselection | null = null,
): VectorIndex {
  /** The `k` nearest by the quantised copy and exact re-scoring; null: scan instead. */
  function preselected(vector: Float32Array, k: number, shards?: readonly number[]): Found[] | null {
    const ids = quantized?.candidates(vector, k * OVERSAMPLE, shards)
    if (!quantized || !ids) return null
    const scored = quantized.distances(vector, ids)
    if (scored.length < ids.length) {
      const stored = new Set(scored.map((s) => s.id))
      quantized.forget(ids.filter((id) => !stored.has(id)))
    }
    // Fewer than k still stored out of a full set of candidates: others may be nearer than
    // the ones left. (A set that is not full held every vector of the shards.)
    if (scored.length < k && ids.length === k * OVERSAMPLE) return null
    return scored.sort(nearestFirst).slice(0, k)
  }

  /** The `k` nearest passing `filters` over the given shards (or all), with their heads. */
  function scan(vector: Float32Array, k: number, filters: ChunkFilters, shards?: readonly number[]): Neighbour[] {
    const found =
      (isUnfiltered(filters) ? preselected(vector, k, shards) : null) ??
      (shards
        ? shards
            .flatMap((shard) => repo.knn(vector, k, filters, shard))
            .sort(nearestFirst)
            .slice(0, k)
        : repo.knn(vector, k, filters))
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
