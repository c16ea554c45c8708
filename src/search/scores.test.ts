import { describe, expect, it } from 'vitest'
import { ABSENT_NAME_WEIGHT, matchIdf, matchShare, roundScore, termMatch, termWeight, textScoreOf } from './scores.js'

const DEFAULT_MIN_SCORE = 0.35

describe('matchIdf', () => {
  it.each([
    // rows, docFreq, idf
    [1000, 0, Math.log(1 + 1000.5 / 0.5)],
    [1000, 10, Math.log(1 + 990.5 / 10.5)],
    [5, 3, Math.log(1 + 2.5 / 3.5)],
    [5, 5, Math.log(1 + 0.5 / 5.5)],
  ])('rows %d, docFreq %d → %f', (rows, docFreq, idf) => {
    expect(matchIdf(rows, docFreq)).toBeCloseTo(idf, 12)
  })

  it('stays positive for terms in every chunk and falls as terms get commoner', () => {
    let previous = Infinity
    for (let n = 0; n <= 50; n++) {
      const idf = matchIdf(50, n)
      expect(idf).toBeGreaterThan(0)
      expect(idf).toBeLessThan(previous)
      previous = idf
    }
  })
})

describe('termWeight', () => {
  it('weighs an absent name ABSENT_NAME_WEIGHT times its IDF, and nothing else differently', () => {
    expect(termWeight(100, 0, true)).toBeCloseTo(ABSENT_NAME_WEIGHT * matchIdf(100, 0), 12)
    expect(termWeight(100, 0, false)).toBe(matchIdf(100, 0))
    expect(termWeight(100, 3, true)).toBe(matchIdf(100, 3))
  })
})

describe('termMatch', () => {
  it.each([
    // freq, docTokens, tf
    [0, 250, 0],
    [1, 250, 1],
    [2, 250, (2 * 2.2) / (2 + 1.2)],
    [1, 500, 2.2 / (1 + 1.2 * (0.25 + 0.75 * 2))],
    [1, 25, 2.2 / (1 + 1.2 * (0.25 + 0.75 * 0.1))],
  ])('freq %d in %d tokens → %f', (freq, docTokens, tf) => {
    expect(termMatch(freq, docTokens)).toBeCloseTo(tf, 12)
  })

  it('saturates below k1 + 1', () => {
    expect(termMatch(1000, 100)).toBeLessThan(2.2)
  })
})

describe('matchShare', () => {
  it.each([
    [[], [], 0],
    [[2, 2], [1, 1], 1],
    [[2, 2], [1, 0], 0.5],
    [[3, 1], [0, 1], 0.25],
    [[3, 1], [1, 0], 0.75],
    [[1], [2.2], 2.2],
  ])('weights %j, tfs %j → %f', (weights, tfs, share) => {
    expect(matchShare(weights, tfs)).toBeCloseTo(share, 12)
  })
})

describe('textScoreOf', () => {
  it('is monotonic, 0 at 0, and below 1', () => {
    let previous = -1
    for (let m = 0; m <= 5; m += 0.05) {
      const score = textScoreOf(m)
      expect(score).toBeGreaterThan(previous)
      expect(score).toBeLessThan(1)
      previous = score
    }
    expect(textScoreOf(0)).toBe(0)
  })
})

/** textScore of one chunk for a query, from document frequencies in a corpus of `rows`. */
function scoreOf(rows: number, terms: { docFreq: number; freq: number; name?: boolean }[], docTokens = 250): number {
  const weights = terms.map((t) => termWeight(rows, t.docFreq, t.name ?? false))
  const tfs = terms.map((t) => termMatch(t.freq, docTokens))
  return textScoreOf(matchShare(weights, tfs))
}

describe('textScore against the default minScore', () => {
  it('keeps a chunk holding every query term once, in a large workspace and a tiny one', () => {
    expect(
      scoreOf(5000, [
        { docFreq: 12, freq: 1 },
        { docFreq: 40, freq: 1 },
      ]),
    ).toBeGreaterThan(0.7)
    // Five chunks, both terms in most of them: FTS5's IDF would be 1e-6 for both.
    expect(
      scoreOf(5, [
        { docFreq: 4, freq: 1 },
        { docFreq: 3, freq: 1 },
      ]),
    ).toBeGreaterThan(0.7)
  })

  it('keeps a chunk with the rare half of a query', () => {
    expect(
      scoreOf(5000, [
        { docFreq: 3, freq: 1 },
        { docFreq: 900, freq: 0 },
      ]),
    ).toBeGreaterThan(DEFAULT_MIN_SCORE)
  })

  it('drops a chunk sharing only a common word with a query about something absent', () => {
    const offTopic = [
      { docFreq: 0, freq: 0 },
      { docFreq: 0, freq: 0 },
      { docFreq: 300, freq: 2 },
    ]
    expect(scoreOf(5000, offTopic)).toBeLessThan(DEFAULT_MIN_SCORE)
  })

  it('drops a chunk with the other words of a question about a name the workspace has never seen', () => {
    const question = [
      { docFreq: 0, freq: 0, name: true },
      { docFreq: 60, freq: 1 },
      { docFreq: 90, freq: 1 },
    ]
    expect(scoreOf(5000, question)).toBeLessThan(DEFAULT_MIN_SCORE)
    const notAName = question.map((t) => ({ ...t, name: false }))
    expect(scoreOf(5000, notAName)).toBeGreaterThan(DEFAULT_MIN_SCORE)
  })
})

describe('roundScore', () => {
  it('rounds to 6 decimals', () => {
    expect(roundScore(0.123456789)).toBe(0.123457)
  })
})
