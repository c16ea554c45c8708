import { describe, expect, it } from 'vitest'
import { createQuantizedVectors, type QuantizedSource } from './quantized-vectors.js'

const DIMS = 8

/** A unit vector with `weights` at the given dimensions. */
function vec(weights: Record<number, number>): Float32Array {
  const v = new Float32Array(DIMS)
  for (const [i, w] of Object.entries(weights)) v[Number(i)] = w
  const norm = Math.hypot(...v)
  return v.map((x) => x / norm)
}
const blob = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength)

/** An index in memory: vectors by id, a change log, a generation bumped by every change. */
function fakeIndex(shards = 2) {
  const vectors = new Map<number, Float32Array>()
  let log: { seq: number; id: number }[] = []
  let seq = 0
  let generation = 0
  let reads = 0
  const change = (id: number, v: Float32Array | null) => {
    if (v) vectors.set(id, v)
    else vectors.delete(id)
    log.push({ seq: ++seq, id })
    generation++
  }
  const source: QuantizedSource = {
    dims: DIMS,
    shards,
    generation: () => generation,
    chunks: () => vectors.size,
    eachVector(of, fn) {
      reads++
      for (const [id, v] of vectors) if (of.includes(id % shards)) fn(id, blob(v))
    },
    vectorOf: (id) => {
      const v = vectors.get(id)
      return v && blob(v)
    },
    changes: {
      bounds: () => ({ min: log[0]?.seq ?? null, max: log.at(-1)?.seq ?? null }),
      after: (s) => log.filter((row) => row.seq > s),
    },
  }
  return {
    source,
    change,
    /** Drops the oldest log rows, as the writer's pruning does. */
    prune: (keep: number) => (log = log.slice(-keep)),
    reads: () => reads,
  }
}

describe('quantised vectors', () => {
  it('names the stored vectors nearest to a sparse query, best first, in the shards asked', () => {
    const index = fakeIndex()
    index.change(1, vec({ 0: 1 }))
    index.change(2, vec({ 0: 1, 1: 1 }))
    index.change(3, vec({ 1: 1 }))
    index.change(4, vec({ 0: 1, 2: 3 }))
    const q = createQuantizedVectors(index.source, 1)
    const query = vec({ 0: 1 })
    expect(q.candidates(query, 3)).toEqual([1, 2, 4])
    // Shard of a chunk = id mod 2.
    expect(q.candidates(query, 3, [1])).toEqual([1, 3])
    expect(q.candidates(query, 3, [0])).toEqual([2, 4])
  })

  it('declines dense queries and indexes below its minimum', () => {
    const index = fakeIndex()
    index.change(1, vec({ 0: 1 }))
    index.change(2, vec({ 1: 1 }))
    expect(createQuantizedVectors(index.source, 1).candidates(vec({ 0: 1, 1: 1, 2: 1 }), 2)).toBeNull()
    expect(createQuantizedVectors(index.source, 3).candidates(vec({ 0: 1 }), 2)).toBeNull()
    expect(createQuantizedVectors(index.source, 0).candidates(vec({ 0: 1 }), 2)).toBeNull()
    expect(index.reads()).toBe(0)
  })

  it('follows the change log: new vectors, replaced ones and deleted ones', () => {
    const index = fakeIndex()
    index.change(1, vec({ 0: 1 }))
    index.change(2, vec({ 1: 1 }))
    const q = createQuantizedVectors(index.source, 1)
    const query = vec({ 0: 1 })
    expect(q.candidates(query, 1)).toEqual([1])
    index.change(3, vec({ 0: 2, 1: 0.1 }))
    index.change(1, null)
    index.change(2, vec({ 0: 1 }))
    expect(q.candidates(query, 3)).toEqual([2, 3])
    expect(index.reads()).toBe(1)
  })

  it('reads everything again when it fell behind the log', () => {
    const index = fakeIndex()
    index.change(1, vec({ 0: 1 }))
    const q = createQuantizedVectors(index.source, 1)
    const query = vec({ 0: 1 })
    expect(q.candidates(query, 2)).toEqual([1])
    index.change(2, vec({ 0: 1, 3: 0.1 }))
    index.change(3, vec({ 1: 1 }))
    index.prune(1)
    expect(q.candidates(query, 2)).toEqual([1, 2])
    expect(index.reads()).toBe(2)
  })

  it('leaves out chunks it was told are gone, and reads again once a quarter are', () => {
    const index = fakeIndex()
    for (let id = 1; id <= 8; id++) index.change(id, vec({ 0: 9 - id, 1: 1 }))
    const q = createQuantizedVectors(index.source, 1)
    const query = vec({ 0: 1 })
    expect(q.candidates(query, 2)).toEqual([1, 2])
    q.forget([1])
    expect(q.candidates(query, 2)).toEqual([2, 3])
    q.forget([2, 3])
    index.change(9, vec({ 1: 1 }))
    expect(q.candidates(query, 2)).toEqual([1, 2])
    expect(index.reads()).toBe(2)
  })

  it('holds the shards it was asked for, and reads again once for a shard it lacks', () => {
    const index = fakeIndex(4)
    for (let id = 1; id <= 8; id++) index.change(id, vec({ 0: 9 - id, 1: 1 }))
    const q = createQuantizedVectors(index.source, 1)
    const query = vec({ 0: 1 })
    // Shards 0 and 2 hold ids 2, 4, 6, 8.
    expect(q.candidates(query, 3, [0, 2])).toEqual([2, 4, 6])
    index.change(9, vec({ 0: 9 }))
    index.change(10, vec({ 0: 9 }))
    expect(q.candidates(query, 3, [0, 2])).toEqual([10, 2, 4])
    expect(index.reads()).toBe(1)
    expect(q.candidates(query, 3, [1, 3])).toEqual([9, 1, 3])
    expect(index.reads()).toBe(2)
    expect(q.candidates(query, 4)).toEqual([9, 10, 1, 2])
    expect(q.candidates(query, 3, [0, 2])).toEqual([10, 2, 4])
    expect(index.reads()).toBe(2)
  })

  it('leaves the vectors of shards it does not hold out of the copy', () => {
    const index = fakeIndex(4)
    for (let id = 1; id <= 8; id++) index.change(id, vec({ 0: 1 }))
    // 2 of 8 chunks are in shard 1: with a minimum of 8, that share stands for 8 chunks.
    const q = createQuantizedVectors(index.source, 8)
    expect(q.candidates(vec({ 0: 1 }), 8, [1])).toEqual([1, 5])
    // Chunks of other shards come through the change log too, and stay out.
    for (const id of [10, 11, 12]) index.change(id, vec({ 0: 1 }))
    index.change(1, null)
    // One of shard 1's chunks left: it stands for 4, below the minimum, so the caller scans.
    expect(q.candidates(vec({ 0: 1 }), 8, [1])).toBeNull()
  })
})
