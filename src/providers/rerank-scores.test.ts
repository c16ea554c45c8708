import { describe, expect, it } from 'vitest'
import { scoresByIndex } from './rerank-scores.js'

describe('scoresByIndex', () => {
  it('places scores by index and gives left-out documents 0', () => {
    expect(
      scoresByIndex(
        'r',
        [
          { index: 2, score: 0.7 },
          { index: 0, score: 0.2 },
        ],
        4,
      ),
    ).toEqual([0.2, 0, 0.7, 0])
  })

  it('passes raw logits through the logistic function', () => {
    const scores = scoresByIndex(
      'r',
      [
        { index: 0, score: 2 },
        { index: 1, score: -2 },
      ],
      2,
    )
    expect(scores[0]).toBeCloseTo(0.8808, 4)
    expect(scores[1]).toBeCloseTo(0.1192, 4)
  })

  it.each([
    [{ index: 3, score: 0.5 }],
    [{ index: -1, score: 0.5 }],
    [{ index: 0.5, score: 0.5 }],
    [{ index: 0, score: Number.NaN }],
  ])('refuses %j', (bad) => {
    expect(() => scoresByIndex('r', [bad], 3)).toThrow(expect.objectContaining({ code: 'PROVIDER_FAILED' }))
  })
})
