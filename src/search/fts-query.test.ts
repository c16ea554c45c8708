import { describe, expect, it } from 'vitest'
import { queryTerms } from '../text/analyzer.js'
import { buildFtsQuery } from './fts-query.js'

describe('buildFtsQuery', () => {
  it.each([
    [{ terms: [], phrases: [] }, null],
    [{ terms: ['qwen'], phrases: [] }, '"qwen"'],
    [{ terms: ['qwen', 'max', 'qwen_max'], phrases: [] }, '"qwen" OR "max" OR "qwen_max"'],
    [
      { terms: ['模型', '型升', '升级'], phrases: [['模型', '型升', '升级']] },
      '"模型" OR "型升" OR "升级" OR "模型 型升 升级"',
    ],
    [{ terms: ['a"b'], phrases: [] }, '"a""b"'],
  ])('builds %j → %j', (terms, expected) => {
    expect(buildFtsQuery(terms)).toBe(expected)
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
    const match = buildFtsQuery(queryTerms(raw))
    if (match === null) return
    // Only quoted strings joined by OR: every quote pair encloses one term or phrase.
    expect(match).toMatch(/^"[^"]+"( OR "[^"]+")*$/)
  })
})
