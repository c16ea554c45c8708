import { describe, expect, it } from 'vitest'
import { queryTerms } from '../text/analyzer.js'
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
})
