import { describe, expect, it } from 'vitest'
import { impactBound, IMPACT_REFERENCE_TOKENS, postingImpact } from './impact.js'

/** FTS5's bm25() term-frequency part (search/bm25.ts with an IDF of 1). */
function rankedPart(body: number, heading: number, tokens: number, avgTokens: number, headingWeight: number) {
  const freq = body + headingWeight * heading
  return (freq * 2.2) / (freq + 1.2 * (0.25 + (0.75 * tokens) / avgTokens))
}

describe('postingImpact', () => {
  it.each([
    // [body, heading, tokens, impact]
    [1, 0, IMPACT_REFERENCE_TOKENS, 1],
    [0, 1, IMPACT_REFERENCE_TOKENS, 4.4 / 3.2],
    [2, 0, IMPACT_REFERENCE_TOKENS, 4.4 / 3.2],
    [1, 0, 0, 2.2 / 1.3],
    [1, 0, 4 * IMPACT_REFERENCE_TOKENS, 2.2 / 4.9],
  ])('gives %i body and %i heading occurrences in %i terms an impact of %f', (body, heading, tokens, impact) => {
    expect(postingImpact(body, heading, tokens)).toBeCloseTo(impact, 12)
  })

  it('grows with occurrences, counts a heading occurrence twice and falls with length', () => {
    expect(postingImpact(3, 0, 100)).toBeGreaterThan(postingImpact(2, 0, 100))
    expect(postingImpact(1, 1, 100)).toBe(postingImpact(3, 0, 100))
    expect(postingImpact(1, 0, 100)).toBeGreaterThan(postingImpact(1, 0, 101))
  })
})

describe('impactBound', () => {
  const postings = [0, 1, 3, 10, 40, 200, 250, 600, 3000].flatMap((tokens) =>
    [
      [1, 0],
      [0, 1],
      [2, 1],
      [7, 0],
      [0, 4],
    ].map(([body, heading]) => ({ body: body as number, heading: heading as number, tokens })),
  )

  it.each([
    // [corpus average length, heading weight]
    [IMPACT_REFERENCE_TOKENS, 2],
    [50, 2],
    [201, 2],
    [555, 2],
    [5000, 2],
    [201, 1],
    [201, 4],
    [555, 0],
  ])(
    'is never below the ranked part of a posting of lower impact (average %i terms, heading weight %f)',
    (avg, weight) => {
      for (const p of postings) {
        const impact = postingImpact(p.body, p.heading, p.tokens)
        for (const q of postings) {
          if (postingImpact(q.body, q.heading, q.tokens) > impact) continue
          expect(impactBound(impact, avg, weight)).toBeGreaterThanOrEqual(
            rankedPart(q.body, q.heading, q.tokens, avg, weight),
          )
        }
      }
    },
  )

  it.each([
    // [reference length, corpus average length]
    [180, 180],
    [180, 200],
    [180, 150],
    [400, 555],
  ])('holds against a reference of %i terms (average %i)', (reference, avg) => {
    for (const p of postings) {
      const impact = postingImpact(p.body, p.heading, p.tokens, reference)
      for (const q of postings) {
        if (postingImpact(q.body, q.heading, q.tokens, reference) > impact) continue
        expect(impactBound(impact, avg, 2, reference)).toBeGreaterThanOrEqual(
          rankedPart(q.body, q.heading, q.tokens, avg, 2),
        )
      }
    }
  })

  it('is the impact itself when the corpus is no longer than the reference and headings weigh as in impacts', () => {
    const impact = postingImpact(2, 1, 180)
    expect(impactBound(impact, 200, 2)).toBeCloseTo(impact, 8)
    expect(impactBound(impact, 200, 2)).toBeGreaterThanOrEqual(impact)
  })

  it('loosens with the corpus average beyond the reference', () => {
    const impact = postingImpact(1, 0, 300)
    expect(impactBound(impact, 2 * IMPACT_REFERENCE_TOKENS, 2)).toBeGreaterThan(impactBound(impact, 250, 2))
  })

  it('bounds nothing at the highest impact', () => {
    expect(impactBound(2.2, 200, 2)).toBe(Infinity)
  })
})
