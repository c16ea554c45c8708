/**
 * Entries in search (issue 31, SPEC §11): a metadata comment opens an entry; a search sees
 * current facts unless it asks for superseded ones too, filters by origin, and every result
 * carries its entry's status, observed date, key and origin. In keyword, vector and hybrid
 * modes, in the team's memory too, over REST and MCP; a malformed comment is text. Runs on
 * both engines (POSTGRES_API_SUITE).
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { useTestApp, type SearchBody, type TestApp } from '../helpers/build-test-app.js'
import { createFakeEmbedder } from '../helpers/fake-embedder.js'
import { createTempWorkspace } from '../helpers/temp-workspace.js'
import { waitFor } from '../helpers/wait-for.js'

/** OpenClaw's own example: a changed preference superseded in place. */
const PREFERENCES = `# Preferences

<!-- observed: 2026-05-10 | status: superseded | key: reply-style -->
- Prefer detailed explanations for every code change.

<!-- observed: 2026-07-27 | status: active | key: reply-style | origin: owner -->
- Prefer concise implementation summaries unless more detail is requested.

<!-- observed: 2026-07-28 | origin: untrusted -->
- A pasted web page claimed the staging database lives on db-7.

## Hosts
- The staging database lives on db-3.
`

async function start(opts: { embedder?: boolean; env?: Record<string, string> } = {}): Promise<TestApp> {
  const ws = createTempWorkspace()
  ws.write('MEMORY.md', PREFERENCES)
  ws.write('memory/2026-07-01.md', '## 09:00:00\n- Explanations of the code change went to the wiki.\n')
  return useTestApp({
    ws,
    sync: true,
    ...(opts.env && { env: opts.env }),
    ...(opts.embedder && { overrides: { embedder: createFakeEmbedder({ dims: 64 }).provider } }),
  })
}

type Hit = SearchBody['results'][number]
const where = (h: Hit) => `${h.path}#${h.startLine}`

async function search(t: TestApp, body: Record<string, unknown>): Promise<Hit[]> {
  const res = await t.search({ minScore: 0, maxResults: 20, ...body })
  expect(res.statusCode, JSON.stringify(res.body)).toBe(200)
  return res.body.results
}

describe('entries in search', () => {
  it('returns current facts only, unless asked for superseded ones too, marked', async () => {
    const t = await start()
    const current = await search(t, { query: 'detailed explanations code change' })
    expect(current.map(where)).not.toContain('MEMORY.md#4')
    expect(current.every((h) => h.status === 'active')).toBe(true)
    const all = await search(t, { query: 'detailed explanations code change', includeSuperseded: true })
    const old = all.find((h) => h.path === 'MEMORY.md' && h.startLine <= 4 && h.endLine >= 4)
    expect(old).toMatchObject({ status: 'superseded', observed: '2026-05-10', key: 'reply-style', origin: null })
    // The comment line is not in the snippet: its fields are.
    expect(old?.snippet).not.toContain('<!--')
    const fresh = await search(t, { query: 'concise implementation summaries' })
    expect(fresh[0]).toMatchObject({
      path: 'MEMORY.md',
      startLine: 7,
      endLine: 7,
      status: 'active',
      observed: '2026-07-27',
      key: 'reply-style',
      origin: 'owner',
    })
  })

  it('carries active and nulls for text outside any entry, and filters by origin', async () => {
    const t = await start()
    const plain = await search(t, { query: 'staging database' })
    const host = plain.find((h) => h.snippet.includes('db-3'))
    expect(host).toMatchObject({ status: 'active', observed: null, key: null, origin: null })
    expect((await search(t, { query: 'wiki' }))[0]).toMatchObject({
      path: 'memory/2026-07-01.md',
      status: 'active',
      origin: null,
    })
    const untrusted = await search(t, { query: 'staging database', origins: ['untrusted'] })
    expect(untrusted.map((h) => [h.path, h.startLine, h.origin])).toEqual([['MEMORY.md', 10, 'untrusted']])
    expect(await search(t, { query: 'staging database', origins: ['owner', 'agent'] })).toEqual([])
    // Origins and superseded together: the owner's entry and no other.
    const owner = await search(t, { query: 'prefer', origins: ['owner'], includeSuperseded: true })
    expect(owner.map(where)).toEqual(['MEMORY.md#7'])
  })

  it.each(['vector', 'hybrid'] as const)('leaves superseded entries out in %s mode too', async (mode) => {
    const t = await start({ embedder: true })
    const current = await search(t, { query: 'detailed explanations for every code change', mode })
    expect(current.length).toBeGreaterThan(0)
    expect(current.some((h) => h.status === 'superseded')).toBe(false)
    const all = await search(t, { query: 'detailed explanations for every code change', mode, includeSuperseded: true })
    expect(all.find((h) => h.status === 'superseded')).toMatchObject({ path: 'MEMORY.md', observed: '2026-05-10' })
    const owner = await search(t, { query: 'concise summaries', mode, origins: ['owner'] })
    expect(owner.map((h) => h.origin)).toEqual(['owner'])
  })

  it('indexes a malformed metadata comment as text and warns, never a 500', async () => {
    const logs: string[] = []
    const ws = createTempWorkspace()
    ws.write('MEMORY.md', '<!-- status: maybe | observed: someday -->\n- The quartermaster keeps the ledger.\n')
    const t = await useTestApp({ ws, sync: true, logs })
    const hits = await search(t, { query: 'quartermaster ledger' })
    expect(hits[0]).toMatchObject({ path: 'MEMORY.md', status: 'active', observed: null })
    expect((await search(t, { query: 'someday' }))[0]?.snippet).toContain('<!-- status: maybe')
    expect(logs.join('\n')).toMatch(/entry metadata comments that cannot be read are indexed as text/)
  })

  it('refuses an unknown origin with 400 VALIDATION_FAILED', async () => {
    const t = await start()
    for (const origins of [['admin'], []]) {
      const res = await t.search({ query: 'prefer', origins })
      expect(res.statusCode).toBe(400)
      expect(res.body.code).toBe('VALIDATION_FAILED')
    }
  })

  it('leaves superseded entries of team memory out, and MCP memory_search takes the same fields', async () => {
    const ws = createTempWorkspace()
    ws.write('MEMORY.md', '- Nothing about hosts here.\n')
    const teamDir = path.join(ws.base, 'team')
    fs.mkdirSync(teamDir)
    fs.writeFileSync(
      `${teamDir}/MEMORY.md`,
      '<!-- observed: 2026-01-02 | status: superseded -->\n- The build server is jenkins-old.\n\n' +
        '<!-- observed: 2026-03-04 -->\n- The build server is jenkins-new.\n',
    )
    const t = await useTestApp({ ws, env: { MNEMO_TEAM_DIR: teamDir, MNEMO_INDEX_ON_START: 'true' } })
    await t.container.start()
    // Indexed by the team's start-up sync.
    const hits = await waitFor(async () => {
      const found = await search(t, { query: 'build server jenkins' })
      return found.length > 0 ? found : undefined
    })
    expect(hits.map((h) => [h.path, h.status])).toEqual([['team/MEMORY.md', 'active']])
    await t.app.listen({ host: '127.0.0.1', port: 0 })
    const { port } = t.app.server.address() as { port: number }
    const call = async (args: Record<string, unknown>) => {
      const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'memory_search', arguments: { query: 'build server jenkins', minScore: 0, ...args } },
        }),
      })
      return (await res.json()) as {
        result: { content: { text: string }[]; structuredContent: { results: Hit[] } }
      }
    }
    const current = await call({})
    expect(current.result.structuredContent.results.map((h) => h.status)).toEqual(['active'])
    const all = await call({ includeSuperseded: true })
    expect(all.result.structuredContent.results.map((h) => h.status).sort()).toEqual(['active', 'superseded'])
    expect(all.result.content[0]?.text).toContain('superseded (observed 2026-01-02)')
  })
})
