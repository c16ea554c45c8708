import { describe, expect, it } from 'vitest'
import { relativeScores, roundScore } from './scores.js'

describe('relativeScores', () => {
  it.each([
    [[], []],
    [[10], [1]],
    [
      [10, 5, 2.5],
      [1, 0.5, 0.25],
    ],
    [
      [4, 4],
      [1, 1],
    ],
    // FTS5 clamps IDF near zero in tiny corpora: scores are minute, but their order is kept.
    [
      [2e-6, 1e-6],
      [1, 0.5],
    ],
    [
      [0, 0],
      [1, 1],
    ],
  ])('maps BM25 scores %j to %j', (scores, expected) => {
    expect(relativeScores(scores)).toEqual(expected)
  })

  it('is monotonic, within (0, 1], and not constant', () => {
    const scores = relativeScores([12.5, 9.1, 9.1, 3.3, 0.2, 0.01])
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
