import { describe, expect, it } from 'vitest'
import { fuseWeighted } from './fuse.js'

const hit = (id: number, textScore: number) => ({ id, path: `n${id}.md`, textScore })

describe('fuseWeighted', () => {
  it.each([
    {
      name: 'the plain list alone is unchanged',
      lists: [{ weight: 1, hits: [hit(1, 0.7), hit(2, 0.4)] }],
      want: [
        [1, 0.7],
        [2, 0.4],
      ],
    },
    {
      name: 'a chunk only a variant finds comes in at the variant weight',
      lists: [
        { weight: 1, hits: [hit(1, 0.7)] },
        { weight: 0.8, hits: [hit(3, 0.5)] },
      ],
      want: [
        [1, 0.7],
        [3, 0.4],
      ],
    },
    {
      name: 'a chunk keeps its plain score when the variant scores it lower',
      lists: [
        { weight: 1, hits: [hit(1, 0.6)] },
        { weight: 0.8, hits: [hit(1, 0.7)] },
      ],
      want: [[1, 0.6]],
    },
    {
      name: 'a variant raises a chunk it matches better, and can pass a weaker plain hit',
      lists: [
        { weight: 1, hits: [hit(1, 0.5), hit(2, 0.2)] },
        { weight: 0.8, hits: [hit(2, 1)] },
      ],
      want: [
        [2, 0.8],
        [1, 0.5],
      ],
    },
    {
      name: 'equal scores are ordered by id',
      lists: [
        { weight: 1, hits: [hit(5, 0.4)] },
        { weight: 0.8, hits: [hit(4, 0.5)] },
      ],
      want: [
        [4, 0.4],
        [5, 0.4],
      ],
    },
  ])('$name', ({ lists, want }) => {
    const out = fuseWeighted('textScore', lists, 10)
    expect(out.map((h) => [h.id, Number(h.textScore.toFixed(6))])).toEqual(want)
  })

  it('keeps the best `limit` and the hit object of the list that gave the score', () => {
    const out = fuseWeighted(
      'textScore',
      [
        { weight: 1, hits: [hit(1, 0.3), hit(2, 0.2)] },
        { weight: 0.5, hits: [{ ...hit(3, 1), path: 'from-variant.md' }] },
      ],
      2,
    )
    expect(out).toEqual([
      { id: 3, path: 'from-variant.md', textScore: 0.5 },
      { id: 1, path: 'n1.md', textScore: 0.3 },
    ])
  })
})
