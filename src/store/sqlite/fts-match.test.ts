import { describe, expect, it } from 'vitest'
import { queryTerms } from '../../text/analyzer.js'
import { ftsMatch } from './fts-match.js'

describe('ftsMatch', () => {
  it.each([
    [[], null],
    [['qwen'], '"qwen"'],
    [['qwen', 'max', 'qwen_max'], '"qwen" OR "max" OR "qwen_max"'],
    [['模型', '升级'], '"模型" OR "升级"'],
    [['a"b'], '"a""b"'],
  ])('builds %j → %j', (terms, expected) => {
    expect(ftsMatch(terms)).toBe(expected)
  })

  it.each([
    '"',
    '*',
    'NEAR(a b, 2)',
    'title:foo',
    '-bar',
    '(x OR y) AND z',
    '^start',
    'a + b',
    "'; DROP TABLE chunks; --",
  ])('never lets query syntax through: %j', (raw) => {
    const match = ftsMatch(queryTerms(raw))
    if (match === null) return
    // Only quoted single terms joined by OR.
    expect(match).toMatch(/^"[^" ]+"( OR "[^" ]+")*$/)
  })
})
