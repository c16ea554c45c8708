import { describe, expect, it } from 'vitest'
import { dropDuplicateRanges } from './dedupe.js'

const hit = (path: string, startLine: number, endLine: number) => ({ path, startLine, endLine })

describe('dropDuplicateRanges', () => {
  it.each([
    ['keeps disjoint ranges', [hit('a', 1, 10), hit('a', 11, 20)], 2],
    ['keeps the usual ~20% chunk overlap', [hit('a', 1, 17), hit('a', 16, 22)], 2],
    ['drops a second piece of the same line', [hit('a', 5, 5), hit('a', 5, 5)], 1],
    ['drops a range mostly inside a better one', [hit('a', 1, 20), hit('a', 3, 8)], 1],
    ['keeps the same lines of different files', [hit('a', 1, 5), hit('b', 1, 5)], 2],
  ])('%s', (_name, hits, kept) => {
    expect(dropDuplicateRanges(hits)).toHaveLength(kept)
  })

  it('keeps the earlier (better-ranked) hit', () => {
    const better = { ...hit('a', 5, 5), id: 1 }
    const worse = { ...hit('a', 5, 5), id: 2 }
    expect(dropDuplicateRanges([better, worse])).toEqual([better])
  })
})
