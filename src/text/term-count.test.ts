import { describe, expect, it } from 'vitest'
import { countTerm } from './term-count.js'

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
