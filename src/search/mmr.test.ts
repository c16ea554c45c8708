import { describe, expect, it } from 'vitest'
import { jaccard, mmrOrder } from './mmr.js'

const set = (s: string) => new Set(s.split(' ').filter(Boolean))

describe('jaccard', () => {
  it.each([
    ['a b', 'a b', 1],
    ['a b', 'c d', 0],
    ['a b c', 'b c d', 0.5],
    ['', '', 0],
  ])('%s vs %s → %f', (a, b, j) => {
    expect(jaccard(set(a), set(b))).toBe(j)
  })
})

describe('mmrOrder', () => {
  const items = [
    { id: 'redis-1', score: 0.9 },
    { id: 'redis-2', score: 0.88 },
    { id: 'redis-3', score: 0.86 },
    { id: 'postgres', score: 0.7 },
  ]
  const terms = [set('redis port 6379'), set('redis port 6379'), set('redis port 6379 staging'), set('postgres url')]

  it('keeps score order at λ = 1', () => {
    expect(mmrOrder(items, terms, 1, 4).map((i) => i.id)).toEqual(['redis-1', 'redis-2', 'redis-3', 'postgres'])
  })

  it('lifts the result unlike those above it at λ = 0.7, keeping each its own score', () => {
    const out = mmrOrder(items, terms, 0.7, 3)
    expect(out.map((i) => i.id)).toEqual(['redis-1', 'postgres', 'redis-3'])
    expect(out[1]?.score).toBe(0.7)
  })

  it('returns at most k items and nothing for no items', () => {
    expect(mmrOrder(items, terms, 0.5, 2)).toHaveLength(2)
    expect(mmrOrder([], [], 0.7, 5)).toEqual([])
  })
})
