import { describe, expect, it } from 'vitest'
import { indexTokens, MAX_QUERY_TERMS, queryTerms } from './analyzer.js'

describe('indexTokens', () => {
  it.each([
    ['Hello World', ['hello', 'world']],
    ['qwen-max', ['qwen', 'max', 'qwen_max']],
    ['POSTGRES_URL', ['postgres', 'url', 'postgres_url']],
    ['getUserName', ['get', 'user', 'name', 'getusername']],
    ['HTTPServer', ['http', 'server', 'httpserver']],
    ['2026-02-16', ['2026', '02', '16', '2026_02_16']],
    ['v2.3.1', ['v2', '3', '1', 'v2_3_1']],
    ['ｑｗｅｎ－ｍａｘ', ['qwen', 'max', 'qwen_max']],
    ['café', ['café']],
    ['模型', ['模型', '模', '型']],
    ['猫', ['猫']],
    ['升级为qwen-max', ['升级', '级为', '升', '级', '为', 'qwen', 'max', 'qwen_max']],
    ['東京の天気', ['東京', '京の', 'の天', '天気', '東', '京', 'の', '天', '気']],
    ['"quoted" NEAR(x) a*b', ['quoted', 'near', 'x', 'a', 'b']],
  ])('analyses %j', (text, tokens) => {
    expect(indexTokens(text)).toEqual(tokens)
  })

  it('emits only characters FTS5 keeps inside one token (letters, digits, marks, _)', () => {
    const tokens = indexTokens('a-b_c.d:e/f@g+h#i (j) "k" *l* ^m; 中文，标点！')
    for (const t of tokens) expect(t).toMatch(/^[\p{L}\p{N}\p{M}_]+$/u)
  })

  it('drops tokens longer than 64 characters (hashes, base64)', () => {
    expect(indexTokens(`key ${'a'.repeat(65)} end`)).toEqual(['key', 'end'])
  })
})

describe('queryTerms', () => {
  it.each([
    ['qwen-max 模型升级', ['qwen', 'max', 'qwen_max', '模型', '型升', '升级']],
    ['When did Caroline go to the support group?', ['caroline', 'go', 'support', 'group']],
    ['莱昂德罗·内托的国籍是哪个国家？', ['莱昂', '昂德', '德罗', '内托', '国籍', '国家']],
    ['POSTGRES_URL', ['postgres', 'url', 'postgres_url']],
    ['猫', ['猫']],
  ])('turns %j into terms %j', (query, terms) => {
    expect(queryTerms(query).terms).toEqual(terms)
  })

  it('keeps stopwords when the query has nothing else', () => {
    expect(queryTerms('what is it').terms).toEqual(['what', 'is', 'it'])
    expect(queryTerms('是什么').terms).toEqual(['是什', '什么'])
  })

  it('treats FTS5 syntax as text', () => {
    expect(queryTerms('"NEAR(a b)" -foo* title:x (OR) AND').terms).toEqual([
      'near',
      'b',
      'foo',
      'title',
      'x',
      'title_x',
    ])
  })

  it('returns no terms for a query without letters or digits', () => {
    expect(queryTerms('*** ??? ()').terms).toEqual([])
  })

  it('adds the bigram sequence of a CJK run of three or more characters as a phrase', () => {
    expect(queryTerms('模型升级').phrases).toEqual([['模型', '型升', '升级']])
    expect(queryTerms('模型').phrases).toEqual([])
  })

  it('deduplicates and caps the number of terms', () => {
    expect(queryTerms('alpha alpha beta').terms).toEqual(['alpha', 'beta'])
    const long = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ')
    expect(queryTerms(long).terms).toHaveLength(MAX_QUERY_TERMS)
  })
})
