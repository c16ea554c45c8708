import { describe, expect, it } from 'vitest'
import { columnCounts, countTerm } from './term-count.js'

describe('countTerm', () => {
  it.each([
    ['a b a c a', 'a', 3],
    ['qwen qwen_max max', 'qwen', 1],
    ['qwen_max qwen', 'max', 0],
    ['模型 型升 升级 模 型', '型', 1],
    ['', 'a', 0],
    ['abc', 'abc', 1],
  ])('counts %j in %j', (terms, term, n) => {
    expect(countTerm(terms, term)).toBe(n)
  })
})

describe('columnCounts', () => {
  it.each([
    [
      'a b a',
      'b c',
      undefined,
      [
        ['a', [2, 0]],
        ['b', [1, 1]],
        ['c', [0, 1]],
      ],
    ],
    ['', '', undefined, []],
    [
      'a b a',
      '',
      undefined,
      [
        ['a', [2, 0]],
        ['b', [1, 0]],
      ],
    ],
    [
      'a b a',
      'b c',
      (t: string) => t !== 'b',
      [
        ['a', [2, 0]],
        ['c', [0, 1]],
      ],
    ],
  ])('counts %j and %j', (body, heading, wanted, counts) => {
    expect([...columnCounts(body, heading, wanted)]).toEqual(counts)
  })
})
