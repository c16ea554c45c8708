import { describe, expect, it } from 'vitest'
import { markTerms, queryTerms } from './marks.js'

const marked = (snippet: string, query: string) =>
  markTerms(snippet, query)
    .filter((s) => s.mark)
    .map((s) => s.text)

describe('queryTerms', () => {
  it.each([
    ['deploy day', ['deploy', 'day']],
    ['Redis 6380', ['redis', '6380']],
    ['a b', []],
    ['模型升级', ['模型', '型升', '升级']],
    ['qwen-max 模型', ['qwen', 'max', '模型']],
    ['周', ['周']],
    ['', []],
  ])('%j → %j', (query, terms) => {
    expect(queryTerms(query).sort()).toEqual([...terms].sort())
  })
})

describe('markTerms', () => {
  it.each([
    // [snippet, query, marked parts]
    ['Deploys happen on Tuesday.', 'deploy', ['Deploy']],
    ['redeploy is not a deploy', 'deploy', ['deploy']],
    ['The staging Redis port is 6380.', 'redis port', ['Redis', 'port']],
    ['默认模型升级为 qwen-max', '模型升级', ['模型升级']],
    ['部署在周二。', '部署 周二', ['部署', '周二']],
    ['nothing here', 'deploy', []],
  ])('%j with %j marks %j', (snippet, query, parts) => {
    expect(marked(snippet, query)).toEqual(parts)
  })

  it('cuts the snippet into segments that join back to it, markup included as text', () => {
    const snippet = '<img src=x onerror=alert(1)> deploy <script>'
    const segments = markTerms(snippet, 'deploy script')
    expect(segments.map((s) => s.text).join('')).toBe(snippet)
    expect(segments.filter((s) => s.mark).map((s) => s.text)).toEqual(['deploy', 'script'])
  })
})
