import { describe, expect, it } from 'vitest'
import { indexTokens } from './analyzer.js'
import { lineTermString, termsPerLine } from './line-terms.js'
import { termsOf } from './term-count.js'
import { splitLines } from './lines.js'

/** Texts whose lines analyse differently: CRLF, blank and term-less lines, NFKC, CJK, identifiers. */
const TEXTS = [
  'Redis caches sessions\nfor fifteen minutes',
  'first line\r\nsecond line\r\n',
  '\n\nafter two blank lines\n\n',
  '--- *** ---\nwords here\n!!!',
  'ｆｕｌｌ width and the ﬁ ligature\n① circled',
  '缓存会话十五分钟\n模型升级到 qwen-max\n',
  'getUserName(HTTPServer)\nPOSTGRES_URL=postgres://db:5432/mnemo',
  'Café naïve\nrésumé',
  'single line without a newline',
  '',
]

describe('lineTermString', () => {
  it.each(TEXTS)('holds each line of %j as indexTokens analyses it, and the same terms as the whole text', (text) => {
    const { terms, count } = lineTermString(text)
    const lines = splitLines(text)
    expect(terms.split('\n')).toEqual(lines.length === 0 ? [''] : lines.map((l) => indexTokens(l).join(' ')))
    // FTS5 and the term scans split on spaces and newlines alike: the terms are the text's.
    expect(termsOf(terms)).toEqual(indexTokens(text))
    expect(count).toBe(indexTokens(text).length)
  })
})

describe('termsOf', () => {
  it.each(TEXTS)('gives the terms of %j from its body terms, by line or stored before on one line', (text) => {
    expect(termsOf(lineTermString(text).terms)).toEqual(indexTokens(text))
    expect(termsOf(indexTokens(text).join(' '))).toEqual(indexTokens(text))
  })
})

describe('termsPerLine', () => {
  const lines = 'redi cach\nttl\n\nredi redi ttl\nredis_url'

  it('counts each term once on each line it is on, as a whole term', () => {
    expect([...(termsPerLine(lines, 5, ['redi', 'ttl']) ?? [])]).toEqual([1, 1, 0, 2, 0])
    // "redi" is not a whole term of "redis_url", nor "url" of it.
    expect([...(termsPerLine(lines, 5, ['url', 'cach']) ?? [])]).toEqual([1, 0, 0, 0, 0])
  })

  it('finds terms at the first and the last character', () => {
    expect([...(termsPerLine('a b\nc', 2, ['a', 'c']) ?? [])]).toEqual([1, 1])
  })

  it('declines terms that are not by line for that many lines (a row written before)', () => {
    expect(termsPerLine('redi cach ttl', 3, ['redi'])).toBeNull()
    expect(termsPerLine('a\nb\nc', 2, ['a'])).toBeNull()
    expect(termsPerLine('', 0, ['a'])).toBeNull()
  })

  it('takes a one-line text whatever the separators', () => {
    expect([...(termsPerLine('redi cach', 1, ['cach', 'zzz']) ?? [])]).toEqual([1])
  })
})
