/**
 * Snippets from the terms a search read (issue 35): a keyword search brings each best chunk's
 * body terms by line (text/line-terms.ts) with its text, and the snippet starts at the line
 * they say covers the most query terms, the line analysing the text would pick.
 */
import { describe, expect, it } from 'vitest'
import { buildSnippet } from '../../src/search/snippet.js'
import { queryTerms } from '../../src/text/analyzer.js'
import { useTestApp } from '../helpers/build-test-app.js'
import { createTempWorkspace } from '../helpers/temp-workspace.js'

const MAX_CHARS = 120

/** Notes of 16 lines each, one line per note naming what the query asks for. */
function workspace() {
  const ws = createTempWorkspace()
  const lines = (i: number) =>
    Array.from({ length: 16 }, (_, n) => {
      if (n === 3 + i) return `- the Redis cache keeps sessions for ${15 + i} minutes (TTL)`
      if (n === 9) return `- 缓存过期之后重新登录 ${i}`
      if (n === 11) return '- redis alone, once'
      return `- filler line ${n} of note ${i}, about the deployment schedule`
    }).join('\n')
  for (let i = 0; i < 4; i++) ws.write(`memory/2026-03-0${i + 1}.md`, `${lines(i)}\n`)
  return ws
}

describe('snippets from the body terms a search read', () => {
  it('start at the line covering the most query terms, as analysing the text does', async () => {
    const t = await useTestApp({ ws: workspace(), env: { MNEMO_SNIPPET_MAX_CHARS: String(MAX_CHARS) } })
    for (const query of ['redis session TTL', '缓存过期 登录', 'deployment schedule redis']) {
      const res = await t.search({ query, mode: 'keyword', maxResults: 4 })
      expect(res.statusCode).toBe(200)
      expect(res.body.results.length).toBeGreaterThan(0)
      for (const hit of res.body.results) {
        const read = await t.app.inject({
          method: 'GET',
          url: `/files/${hit.path}?from=${hit.startLine}&lines=${hit.endLine - hit.startLine + 1}`,
        })
        const text = read.json<{ text: string }>().text
        expect(text.length).toBeGreaterThan(MAX_CHARS)
        expect(hit.snippet).toBe(buildSnippet(text, queryTerms(query), MAX_CHARS))
      }
    }
    const top = (await t.search({ query: 'redis session TTL', mode: 'keyword' })).body.results[0]
    expect(top?.snippet.startsWith('- the Redis cache keeps sessions')).toBe(true)
  })

  it('are the same in hybrid and diversified searches, whose texts are read after ranking', async () => {
    const env = { MNEMO_SNIPPET_MAX_CHARS: String(MAX_CHARS), MNEMO_EMBED_PROVIDER: 'hash' }
    const t = await useTestApp({ ws: workspace(), env })
    for (const body of [
      { query: 'redis session TTL', mode: 'hybrid' as const },
      { query: 'redis session TTL', mode: 'keyword' as const, mmr: true },
      { query: '缓存过期 登录', mode: 'hybrid' as const, mmr: true },
    ]) {
      const res = await t.search({ ...body, maxResults: 4, minScore: 0 })
      expect(res.statusCode).toBe(200)
      expect(res.body.mode).toBe(body.mode)
      expect(res.body.results.length).toBeGreaterThan(1)
      for (const hit of res.body.results) {
        const read = await t.app.inject({
          method: 'GET',
          url: `/files/${hit.path}?from=${hit.startLine}&lines=${hit.endLine - hit.startLine + 1}`,
        })
        expect(hit.snippet).toBe(buildSnippet(read.json<{ text: string }>().text, queryTerms(body.query), MAX_CHARS))
      }
    }
  })
})
