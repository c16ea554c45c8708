import { describe, expect, it } from 'vitest'
import { mergeBest } from './list-resume.js'

describe('mergeBest', () => {
  it.each([
    // [best so far, a read's best, keep, kept]
    [[], [3, 2], 4, [3, 2]],
    [[5, 1], [], 4, [5, 1]],
    [[9, 7, 5], [8, 6, 4], 4, [9, 8, 7, 6]],
    [[4, 4], [4, 3], 3, [4, 4, 4]],
    [[2, 1], [9, 8], 2, [9, 8]],
    [[3], [3], 1, [3]],
  ])('keeps the best of %j and %j, %i of them', (a, b, keep, kept) => {
    expect(mergeBest(a, b, keep)).toEqual(kept)
  })
})
