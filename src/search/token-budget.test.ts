import { describe, expect, it } from 'vitest'
import { estimateTokens } from '../text/token-estimate.js'
import { createTokenBudget, trimToTokens } from './token-budget.js'

// 'aaaa\n' lines: each line is 4 characters, 1 token; with its newline a prefix of n lines
// is 5n − 1 characters, ceil((5n − 1) / 4) tokens.
const LINES = 'aaaa\nbbbb\ncccc\ndddd'

describe('trimToTokens', () => {
  it.each([
    // text, maxTokens, inLine, expected
    [LINES, 100, false, LINES],
    [LINES, 5, false, LINES],
    [LINES, 4, false, 'aaaa\nbbbb\ncccc'],
    [LINES, 2, false, 'aaaa'],
    [LINES, 1, false, 'aaaa'],
    ['abcdefghij\nk', 2, false, ''],
    ['abcdefghij\nk', 2, true, 'abcdefgh'],
    ['模型升级为千问\n下一行', 3, true, '模型升'],
    ['模型 升级', 2, true, '模型'],
  ])('%j within %d tokens (in line: %s) → %j', (text, maxTokens, inLine, expected) => {
    const cut = trimToTokens(text, maxTokens, inLine)
    expect(cut).toBe(expected)
    expect(estimateTokens(cut)).toBeLessThanOrEqual(maxTokens)
    expect(text.startsWith(cut)).toBe(true)
  })
})

describe('createTokenBudget', () => {
  it('packs snippets best first, trims the one that crosses at a line and ends there', () => {
    const budget = createTokenBudget(6)
    expect(budget.fit('aaaa\nbbbb', true)).toBe('aaaa\nbbbb') // 3 tokens
    // 3 left: the whole snippet is 4 tokens, its first two lines 3.
    expect(budget.fit('cccc\ndddd\neeee', false)).toBe('cccc\ndddd')
    expect(budget.full()).toBe(true)
    expect(budget.used()).toBe(6)
  })

  it('drops a later result none of whose lines fits', () => {
    const budget = createTokenBudget(3)
    expect(budget.fit('aaaa\nbbbb', true)).toBe('aaaa\nbbbb')
    expect(budget.fit('a long first line of this result', false)).toBeNull()
    expect(budget.used()).toBe(3)
  })

  it('cuts the best result inside its first line rather than answer nothing', () => {
    const budget = createTokenBudget(2)
    expect(budget.fit('a long first line\nsecond', true)).toBe('a long f')
    expect(budget.full()).toBe(true)
  })

  it('is full once the budget is met exactly', () => {
    const budget = createTokenBudget(3)
    expect(budget.fit('aaaa\nbbbb', true)).toBe('aaaa\nbbbb')
    expect(budget.full()).toBe(true)
  })

  it('only counts without a budget', () => {
    const budget = createTokenBudget(undefined)
    for (let i = 0; i < 50; i++) expect(budget.fit('模型升级', i === 0)).toBe('模型升级')
    expect(budget.full()).toBe(false)
    expect(budget.used()).toBe(200)
  })
})
