import { describe, expect, it } from 'vitest'
import type { ChunkFilters, ChunkHead } from '../../domain/chunks.js'
import { createVec0Index, OVERSAMPLE, type Preselection } from './vec0-index.js'

const head = (id: number): ChunkHead => ({
  id,
  path: `memory/${id}.md`,
  source: 'memory',
  startLine: 1,
  endLine: 2,
  tokenCount: 10,
  datedMs: null,
  entry: null,
})
const heads = (ids: number[]) => ids.map(head)
const query = new Float32Array([1, 0])

/** Exact distances: chunk i at distance i / 100; `stored` says which chunks still have a vector. */
function fakes(candidates: number[] | null, stored: (id: number) => boolean = () => true) {
  const calls = { knn: 0, forgotten: [] as number[] }
  const repo = {
    knn: (_v: Float32Array, k: number) => {
      calls.knn++
      return [1, 2, 3, 4].slice(0, k).map((id) => ({ id, distance: id / 100 }))
    },
  }
  const pre: Preselection = {
    candidates: () => candidates,
    forget: (ids) => calls.forgotten.push(...ids),
    distances: (_v, ids) => ids.filter(stored).map((id) => ({ id, distance: id / 100 })),
  }
  return { index: createVec0Index(repo, heads, pre), calls }
}

const all: ChunkFilters = { includeSuperseded: true }

describe('vec0 index with a pre-selection', () => {
  it('answers unfiltered searches from the candidates, by exact distance', async () => {
    const { index, calls } = fakes([9, 5, 7, 6])
    const found = await index.nearest(query, 2, all)
    expect(found.map((n) => [n.id, n.distance])).toEqual([
      [5, 0.05],
      [6, 0.06],
    ])
    expect(calls.knn).toBe(0)
  })

  it('scans when the pre-selection does not apply or a filter is set', async () => {
    for (const [candidates, filters] of [
      [null, all],
      [[5, 6], { ...all, source: 'memory' }],
      [[5, 6], { ...all, pathPrefix: 'memory/' }],
    ] as const) {
      const { index, calls } = fakes(candidates as number[] | null)
      expect((await index.nearest(query, 2, filters as ChunkFilters)).map((n) => n.id)).toEqual([1, 2])
      expect(calls.knn).toBe(1)
    }
  })

  it('forgets candidates without a vector, and scans when too few of a full set are left', async () => {
    const full = Array.from({ length: 2 * OVERSAMPLE }, (_, i) => 10 + i)
    const { index, calls } = fakes(full, (id) => id === 10)
    expect((await index.nearest(query, 2, all)).map((n) => n.id)).toEqual([1, 2])
    expect(calls.forgotten).toEqual(full.slice(1))
    // A set smaller than asked for held every vector there is.
    const few = fakes([10, 11], (id) => id === 10)
    expect((await few.index.nearest(query, 2, all)).map((n) => n.id)).toEqual([10])
    expect(few.calls.knn).toBe(0)
  })
})
