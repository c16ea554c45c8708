import { describe, expect, it } from 'vitest'
import { analyseQuery, indexTokens, MAX_QUERY_TERMS, queryTerms, termRuns } from './analyzer.js'

describe('indexTokens', () => {
  it.each([
    ['Hello World', ['hello', 'world']],
    ['qwen-max', ['qwen', 'max', 'qwen_max']],
    ['POSTGRES_URL', ['postgr', 'url', 'postgres_url']],
    ['getUserName', ['get', 'user', 'name', 'getusername']],
    ['HTTPServer', ['http', 'server', 'httpserver']],
    ['2026-02-16', ['2026', '02', '16', '2026_02_16']],
    ['v2.3.1', ['v2', '3', '1', 'v2_3_1']],
    ['ｑｗｅｎ－ｍａｘ', ['qwen', 'max', 'qwen_max']],
    ['café', ['cafe']],
    ['Running decided deciding', ['run', 'decid', 'decid']],
    ['Ärzte naïve', ['arzt', 'naiv']],
    ['模型', ['模型', '模', '型']],
    ['猫', ['猫']],
    ['升级为qwen-max', ['升级', '级为', '升', '级', '为', 'qwen', 'max', 'qwen_max']],
    ['東京の天気', ['東京', '京の', 'の天', '天気', '東', '京', 'の', '天', '気']],
    ['"quoted" NEAR(x) a*b', ['quot', 'near', 'x', 'a', 'b']],
  ])('analyses %j', (text, tokens) => {
    expect(indexTokens(text)).toEqual(tokens)
  })

  it('emits only characters FTS5 keeps inside one token (letters, digits, marks, _)', () => {
    const tokens = indexTokens('a-b_c.d:e/f@g+h#i (j) "k" *l* ^m; 中文，标点！')
    for (const t of tokens) expect(t).toMatch(/^[\p{L}\p{N}\p{M}_]+$/u)
  })

  it('drops tokens longer than 64 characters (hashes, base64)', () => {
    expect(indexTokens(`id ${'a'.repeat(65)} end`)).toEqual(['id', 'end'])
  })
})

describe('queryTerms', () => {
  it.each([
    ['qwen-max 模型升级', ['qwen', 'max', 'qwen_max', '模型', '型升', '升级']],
    ['When did Caroline go to the support group?', ['carolin', 'go', 'support', 'group']],
    ['莱昂德罗·内托的国籍是哪个国家？', ['莱昂', '昂德', '德罗', '内托', '国籍', '国家']],
    ['POSTGRES_URL', ['postgr', 'url', 'postgres_url']],
    ['猫', ['猫']],
    // No stopword character: the run is kept whole without segmenting.
    ['部署服务', ['部署', '署服', '服务']],
    // 和 is a stopword, 和平 is not: segmenting keeps the word.
    ['和平协议', ['和平', '平协', '协议']],
  ])('turns %j into terms %j', (query, terms) => {
    expect(queryTerms(query)).toEqual(terms)
  })

  it('stems query words like indexed words, so word forms match', () => {
    expect(queryTerms('deploying')).toEqual(indexTokens('deployed'))
    expect(queryTerms('Considerations')).toEqual(indexTokens('considerate'))
  })

  it('decides stopwords on the word before stemming', () => {
    expect(queryTerms('was this the plan')).toEqual(['plan'])
  })

  it('keeps stopwords when the query has nothing else', () => {
    expect(queryTerms('what is it')).toEqual(['what', 'is', 'it'])
    expect(queryTerms('是什么')).toEqual(['是什', '什么'])
  })

  it('treats FTS5 syntax as text', () => {
    expect(queryTerms('"NEAR(a b)" -foo* title:x (OR) AND')).toEqual(['near', 'b', 'foo', 'titl', 'x', 'title_x'])
  })

  it('returns no terms for a query without letters or digits', () => {
    expect(queryTerms('*** ??? ()')).toEqual([])
  })

  it('deduplicates and caps the number of terms', () => {
    expect(queryTerms('alpha alpha beta')).toEqual(['alpha', 'beta'])
    const long = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ')
    expect(queryTerms(long)).toHaveLength(MAX_QUERY_TERMS)
  })

  it('takes the terms of a long Chinese query from its start, reading on while it needs more', () => {
    // 4,000 characters whose start alone holds far more than MAX_QUERY_TERMS distinct bigrams.
    const varied = Array.from({ length: 4000 }, (_, i) => String.fromCharCode(0x4e00 + ((i * 37) % 5000))).join('')
    expect(queryTerms(varied)).toEqual(queryTerms(varied.slice(0, 200)))
    expect(queryTerms(varied)).toHaveLength(MAX_QUERY_TERMS)
    // Five distinct bigrams repeated past the first window: the terms after it still count.
    const repeated = `${'数据库迁移'.repeat(100)}周五完成备份`
    expect(queryTerms(repeated)).toEqual(expect.arrayContaining(['数据', '移数', '完成', '备份']))
  })
})

describe('analyseQuery names', () => {
  it.each([
    ['When did Caroline go to the LGBTQ support group?', ['carolin', 'lgbtq']],
    ['Caroline went hiking', []],
    ['Did we move to Kubernetes? Redis stays.', ['kubernet']],
    ['the iOS build and the qwen-max model', ['os', 'ios']],
    ['deploy notes', []],
    ['部署 Docker 记忆', ['docker']],
  ])('%s → names %j', (query, names) => {
    const { terms, names: flags } = analyseQuery(query)
    expect(terms.filter((_, i) => flags[i])).toEqual(names)
    expect(terms).toEqual(queryTerms(query))
  })
})

describe('termRuns', () => {
  it('gives each word its offset and index terms, and CJK characters their bigrams', () => {
    expect([...termRuns('Happy 记忆库')]).toEqual([
      { at: 0, terms: ['happi'] },
      { at: 6, terms: ['记', '记忆'] },
      { at: 7, terms: ['忆', '忆库'] },
      { at: 8, terms: ['库'] },
    ])
  })
})
