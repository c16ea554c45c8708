import { describe, expect, it } from 'vitest'
import { createSnippetBudget, truncateUtf8 } from './snippet-budget.js'

describe('truncateUtf8', () => {
  it.each([
    { text: 'hello', max: 10, out: 'hello' },
    { text: 'hello', max: 3, out: 'hel' },
    { text: '模型升级', max: 7, out: '模型' },
    { text: '模型升级', max: 2, out: '' },
    { text: 'a😀b', max: 4, out: 'a' },
    { text: 'a😀b', max: 5, out: 'a😀' },
    { text: '', max: 0, out: '' },
  ])('$text within $max bytes → $out', ({ text, max, out }) => {
    expect(truncateUtf8(text, max)).toBe(out)
  })
})

describe('createSnippetBudget', () => {
  it('keeps the best snippets whole, cuts the one that crosses the budget, empties the rest, and counts them', () => {
    const budget = createSnippetBudget(10)
    expect(budget.fit('abcd')).toBe('abcd')
    expect(budget.fit('efgh')).toBe('efgh')
    expect(budget.fit('ijkl')).toBe('ij')
    expect(budget.exhausted()).toBe(true)
    budget.skip()
    expect(budget.shortened()).toBe(2)
  })

  it('shortens nothing while the snippets fit', () => {
    const budget = createSnippetBudget(100)
    expect(budget.fit('记忆'.repeat(10))).toBe('记忆'.repeat(10))
    expect(budget.exhausted()).toBe(false)
    expect(budget.shortened()).toBe(0)
  })
})
