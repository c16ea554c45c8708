import { describe, expect, it } from 'vitest'
import { mergeHybrid } from './merge.js'

const kw = (...pairs: [number, number][]) => pairs.map(([id, textScore]) => ({ id, textScore }))
const vec = (...pairs: [number, number][]) => pairs.map(([id, vectorScore]) => ({ id, vectorScore }))
const W = { vector: 0.7, text: 0.3 }
const scores = (rows: { id: number; score: number }[]) => rows.map((r) => [r.id, Math.round(r.score * 1000) / 1000])

describe('mergeHybrid', () => {
  it.each([
    [
      'unions by chunk with 0.7/0.3 weights',
      kw([1, 1], [2, 0.5]),
      vec([2, 0.8], [3, 0.6]),
      W,
      [
        [2, 0.71],
        [3, 0.42],
        [1, 0.3],
      ],
    ],
    [
      'keeps keyword scores whole when the vector side did not run',
      kw([1, 1], [2, 0.4]),
      null,
      W,
      [
        [1, 1],
        [2, 0.4],
      ],
    ],
    [
      'keeps vector scores whole in vector mode',
      null,
      vec([5, 0.9], [6, 0.2]),
      W,
      [
        [5, 0.9],
        [6, 0.2],
      ],
    ],
    ['renormalises custom weights', kw([1, 1]), vec([1, 0.5]), { vector: 1, text: 1 }, [[1, 0.75]]],
    ['weighs equally when only zero-weight sides ran', kw([1, 0.6]), null, { vector: 1, text: 0 }, [[1, 0.6]]],
    ['returns nothing for no candidates', [], [], W, []],
  ])('%s', (_name, keyword, vector, weights, expected) => {
    expect(scores(mergeHybrid<{ id: number }>({ keyword, vector, weights }))).toEqual(expected)
  })

  it('lets a strong vector match outrank a weak keyword match, and agreement beat both', () => {
    const merged = mergeHybrid<{ id: number }>({
      keyword: kw([1, 1], [2, 0.3]),
      vector: vec([3, 0.9], [1, 0.2], [2, 0.85]),
      weights: W,
    })
    expect(merged.map((m) => m.id)).toEqual([2, 3, 1])
  })

  it('reports each side’s score, 0 where that side did not return the chunk', () => {
    const merged = mergeHybrid<{ id: number }>({ keyword: kw([1, 0.5]), vector: vec([2, 0.4]), weights: W })
    expect(merged.find((m) => m.id === 1)).toMatchObject({ textScore: 0.5, vectorScore: 0 })
    expect(merged.find((m) => m.id === 2)).toMatchObject({ textScore: 0, vectorScore: 0.4 })
  })

  it('orders equal scores by textScore, then vectorScore, then id', () => {
    // All four score exactly 0.375 with equal weights (binary fractions, no rounding).
    const merged = mergeHybrid<{ id: number }>({
      keyword: kw([4, 0.75], [7, 0.5], [6, 0.5]),
      vector: vec([3, 0.75], [7, 0.25], [6, 0.25]),
      weights: { vector: 1, text: 1 },
    })
    expect(merged.map((m) => m.score)).toEqual([0.375, 0.375, 0.375, 0.375])
    expect(merged.map((m) => m.id)).toEqual([4, 6, 7, 3])
  })
})
