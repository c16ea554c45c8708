import { describe, expect, it } from 'vitest'
import { bm25TermScore } from './bm25.js'

describe('bm25TermScore', () => {
  it('is zero for an absent term and idf·(k1+1)/(1+k1) for one hit in an average row', () => {
    expect(bm25TermScore(3, 0, 100, 100)).toBe(0)
    expect(bm25TermScore(3, 1, 100, 100)).toBeCloseTo(3, 12)
  })

  it('saturates with frequency and prefers shorter rows', () => {
    const one = bm25TermScore(2, 1, 100, 100)
    const five = bm25TermScore(2, 5, 100, 100)
    const many = bm25TermScore(2, 1000, 100, 100)
    expect(five).toBeGreaterThan(one)
    expect(many).toBeLessThan(2 * 2.2)
    expect(bm25TermScore(2, 1, 50, 100)).toBeGreaterThan(bm25TermScore(2, 1, 200, 100))
  })
})
