import { describe, expect, it } from 'vitest'
import { bm25ToTextScores, roundScore } from './scores.js'

describe('bm25ToTextScores', () => {
  it.each([
    [[], []],
    [[-10], [1]],
    [
      [-10, -5, -2.5],
      [1, 0.5, 0.25],
    ],
    [
      [-4, -4],
      [1, 1],
    ],
    // FTS5 clamps IDF near zero in tiny corpora: ranks are minute, but their order is kept.
    [
      [-2e-6, -1e-6],
      [1, 0.5],
    ],
    [
      [0, 0],
      [1, 1],
    ],
  ])('maps ranks %j to %j', (ranks, scores) => {
    expect(bm25ToTextScores(ranks)).toEqual(scores)
  })

  it('is monotonic: a better (lower) rank never gets a lower score', () => {
    const ranks = [-12.5, -9.1, -9.1, -3.3, -0.2, -0.01]
    const scores = bm25ToTextScores(ranks)
    for (let i = 1; i < scores.length; i++) expect(scores[i] as number).toBeLessThanOrEqual(scores[i - 1] as number)
    for (const s of scores) {
      expect(s).toBeGreaterThan(0)
      expect(s).toBeLessThanOrEqual(1)
    }
    expect(new Set(scores).size).toBeGreaterThan(1)
  })
})

describe('roundScore', () => {
  it('keeps six decimals', () => {
    expect(roundScore(0.123456789)).toBe(0.123457)
  })
})
