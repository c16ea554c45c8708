import { describe, expect, it } from 'vitest'
import { indexTokens, queryTerms } from '../text/analyzer.js'
import { lineTermString } from '../text/line-terms.js'
import { buildSnippet } from './snippet.js'

describe('buildSnippet', () => {
  it('returns a short chunk whole', () => {
    expect(buildSnippet('line one\nline two', ['two'], 700)).toBe('line one\nline two')
  })

  it('starts at the line covering the most query terms and stays within maxChars', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `filler line number ${i} with nothing relevant`)
    lines[25] = 'the redis cache ttl is fifteen minutes'
    const text = lines.join('\n')
    const snippet = buildSnippet(text, queryTerms('Redis TTL'), 200)
    expect(snippet.length).toBeLessThanOrEqual(200)
    expect(snippet).toContain('the redis cache ttl is fifteen minutes')
    expect(text).toContain(snippet)
  })

  it('cuts a window out of one long line around the first match, on code points', () => {
    const line = `${'前文'.repeat(400)}关键词${'后文'.repeat(400)}😀`
    const snippet = buildSnippet(line, ['关键'], 100)
    expect(Array.from(snippet).length).toBeLessThanOrEqual(100)
    expect(snippet).toContain('关键词')
    expect(line).toContain(snippet)
  })

  it('finds query words in their other forms, as the index does (stemmed, folded)', () => {
    const lines = Array.from({ length: 30 }, (_, i) => `filler line number ${i} with nothing relevant`)
    lines[20] = 'She said she was so happy at the Café'
    const text = lines.join('\n')
    const snippet = buildSnippet(text, queryTerms('happiness cafe'), 60)
    expect(snippet.startsWith('She said she was so happy at the Café')).toBe(true)
    const long = `${'word '.repeat(300)}feeling HAPPY today ${'word '.repeat(300)}`
    expect(buildSnippet(long, queryTerms('happy'), 80)).toContain('HAPPY')
  })

  it('counts each query term once per line, and of lines covering as many takes the first', () => {
    const lines = Array.from({ length: 30 }, (_, i) => `filler line number ${i} with nothing relevant`)
    lines[5] = 'redis redis redis redis redis redis'
    lines[12] = 'redis and its ttl, first of two such lines'
    lines[18] = 'redis and its ttl, second of two such lines'
    lines[24] = '缓存 过期 redis'
    const snippet = buildSnippet(lines.join('\n'), queryTerms('Redis TTL'), 60)
    expect(snippet.startsWith(lines[12])).toBe(true)
    // Chinese terms are found as the index stores them (bigrams), beside the others.
    expect(buildSnippet(lines.join('\n'), queryTerms('缓存过期 redis'), 60).startsWith(lines[24])).toBe(true)
  })

  it('falls back to the start when no term is found', () => {
    const text = 'abc\n'.repeat(400)
    expect(buildSnippet(text, ['zzz'], 50).startsWith('abc')).toBe(true)
  })

  describe('from the body terms by line a search read with the text', () => {
    const WORDS = ['Redis', 'redis', 'TTL', 'happy', 'happiness', 'Café', 'cafe', 'qwen-max', 'getUserName', 'ｆｕｌｌ']
    const MORE = ['缓存过期', '模型升级', 'the', 'and', 'filler', 'nothing', 'line', '2026-02-16', 'naïve', '—']
    /** A deterministic text of `n` lines drawn from both lists (some lines blank, some CRLF). */
    const textOf = (seed: number, n: number) =>
      Array.from({ length: n }, (_, i) => {
        const k = (seed * 31 + i * 17) % 23
        if (k === 0) return ''
        const words = Array.from({ length: 3 + (k % 9) }, (_, j) => {
          const pick = (seed + i * 7 + j * 13) % 29
          return pick < WORDS.length ? WORDS[pick] : MORE[pick % MORE.length]
        })
        return words.join(' ') + (k % 5 === 0 ? '\r' : '')
      }).join('\n')
    const QUERIES = [
      'Redis TTL',
      'happiness at the cafe',
      '缓存过期 redis',
      'qwen max user name',
      'full naive 2026-02-16',
    ]

    it('picks the line analysing the text picks, for every text and query', () => {
      let compared = 0
      for (let seed = 1; seed <= 60; seed++) {
        const text = textOf(seed, 4 + (seed % 30))
        const { terms } = lineTermString(text)
        for (const q of QUERIES) {
          for (const max of [80, 200]) {
            expect(buildSnippet(text, queryTerms(q), max, terms)).toBe(buildSnippet(text, queryTerms(q), max))
            compared++
          }
        }
      }
      expect(compared).toBe(600)
    })

    it('takes the line the body terms name', () => {
      const lines = ['redis here', 'nothing', 'nothing either', 'no mention']
      const text = lines.map((l) => l.repeat(8)).join('\n')
      // Terms that put "redi" on the third line alone: the snippet starts there, not at line 1.
      const byLine = ['x', 'y', 'redi', 'z'].join('\n')
      expect(buildSnippet(text, ['redi'], 100, byLine).startsWith('nothing either')).toBe(true)
      expect(buildSnippet(text, ['redi'], 100).startsWith('redis here')).toBe(true)
    })

    it('analyses the text when its terms are not by line (a row written before)', () => {
      const lines = Array.from({ length: 20 }, (_, i) => `filler line number ${i}`)
      lines[12] = 'the redis cache ttl'
      const text = lines.join('\n')
      const spaced = indexTokens(text).join(' ')
      expect(buildSnippet(text, queryTerms('Redis TTL'), 60, spaced).startsWith('the redis cache ttl')).toBe(true)
    })
  })
})
