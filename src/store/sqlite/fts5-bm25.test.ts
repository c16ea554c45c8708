import { describe, expect, it } from 'vitest'
import { fts5AvgTokens, fts5Rank, parseAverages } from './fts5-bm25.js'

describe('fts5Rank', () => {
  it.each([
    // [idf, body, heading, heading weight, tokens, average tokens, rank]
    [1, 1, 0, 2, 100, 100, -2.2 / 2.2],
    [2, 1, 0, 2, 100, 100, -2],
    [1, 0, 1, 2, 100, 100, -(2 * 2.2) / 3.2],
    [1, 1, 1, 2, 100, 100, -(3 * 2.2) / 4.2],
    [1, 1, 0, 2, 200, 100, -2.2 / (1 + 1.2 * 1.75)],
    [1, 1, 0, 2, 0, 100, -2.2 / (1 + 1.2 * 0.25)],
    [1e-6, 3, 0, 1, 50, 100, -1e-6 * ((3 * 2.2) / (3 + 1.2 * 0.625))],
  ])('ranks idf %f, %i body and %i heading occurrences (weight %f) in %i of %f terms at %f', (...args) => {
    const [idf, body, heading, weight, tokens, avg, rank] = args
    expect(fts5Rank(idf, body, heading, weight, tokens, avg)).toBeCloseTo(rank, 12)
  })

  it('is lower (better) with more occurrences and for shorter rows', () => {
    expect(fts5Rank(1, 2, 0, 2, 100, 120)).toBeLessThan(fts5Rank(1, 1, 0, 2, 100, 120))
    expect(fts5Rank(1, 1, 0, 2, 90, 120)).toBeLessThan(fts5Rank(1, 1, 0, 2, 100, 120))
  })
})

describe('parseAverages', () => {
  it.each([
    // [bytes, rows, tokens]
    [[0x00], 0, 0],
    [[0x03, 0x05, 0x07], 3, 12],
    [[0x86, 0x8d, 0x21, 0x88, 0xf4, 0xc4, 0x6a, 0xdc, 0x83, 0x49], 100001, 18686570 + 1507785],
  ])('reads %j as %i rows of %i tokens', (bytes, rows, tokens) => {
    expect(parseAverages(Uint8Array.from(bytes))).toEqual({ rows, tokens })
  })

  it('averages tokens over rows', () => {
    expect(fts5AvgTokens({ rows: 4, tokens: 10 })).toBe(2.5)
  })
})
