import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { onPostgres } from '../helpers/test-database.js'
import { useAgentsApp, type AgentsApp } from '../helpers/agents-app.js'
import { embeddingsReply, startScriptedServer } from '../helpers/scripted-server.js'
import { waitFor } from '../helpers/wait-for.js'
import type { AgentList, SearchResponse } from '../helpers/api-types.js'

let t: AgentsApp
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
})

const agents = async () => (await t.call('GET', '/agents')).json<AgentList>().agents
const hits = async (agent: string, query: string) =>
  (await t.call('POST', '/search', { agent, payload: { query } })).json<SearchResponse>().results

describe('agent lifecycle', () => {
  it('closes the least recently used idle agents past MNEMO_MAX_OPEN_AGENTS and reopens them on demand', async () => {
    t = await useAgentsApp({
      env: {
        MNEMO_MAX_OPEN_AGENTS: '2',
        MNEMO_WATCH: 'true',
        MNEMO_SYNC_DEBOUNCE_MS: '20',
        MNEMO_INDEX_ON_START: 'true',
      },
    })
    for (const agent of ['ana', 'ben', 'cy']) {
      const res = await t.call('PUT', '/files/MEMORY.md', {
        agent,
        payload: { content: `# ${agent}\n- ${agent} owns the ${agent}-service runbook.\n` },
      })
      expect(res.statusCode).toBe(201)
    }
    await waitFor(() => (t.container.openAgents() === 2 ? true : undefined))
    const first = await agents()
    expect(first).toEqual([
      {
        id: 'ana',
        open: expect.any(Boolean),
        users: 0,
        files: 1,
        chunks: 1,
        lastSync: expect.objectContaining({ ok: true }),
      },
      {
        id: 'ben',
        open: expect.any(Boolean),
        users: 0,
        files: 1,
        chunks: 1,
        lastSync: expect.objectContaining({ ok: true }),
      },
      { id: 'cy', open: true, users: 0, files: 1, chunks: 1, lastSync: expect.objectContaining({ ok: true }) },
      { id: 'main', open: true, users: 0, files: 0, chunks: 0, lastSync: null },
    ])
    // Ana, the least recently used, is closed unless its watcher's sync of its own write still
    // kept it busy when cy opened (seen on a loaded machine): then ben, the next idle one.
    expect(first.filter((r) => !r.open).map((r) => r.id)).toHaveLength(1)

    const closed = first.find((r) => !r.open)?.id as string
    expect(['ana', 'ben']).toContain(closed)

    // Reopened from its index: nothing is re-read, and its watcher works again.
    expect((await hits(closed, 'runbook')).map((r) => r.path)).toEqual(['MEMORY.md'])
    const status = await waitFor(async () => {
      const s = (await t.call('GET', '/index', { agent: closed })).json<Record<string, unknown>>()
      return s.watching && s.lastSync ? s : undefined
    })
    expect(status).toMatchObject({ files: 1, lastSync: { ok: true, reason: 'startup', indexed: 0, unchanged: 1 } })
    t.writeAgentFile(closed, 'memory/2026-03-01.md', `- ${closed} moved the standup to 9:30.\n`)
    await waitFor(async () => ((await hits(closed, 'standup')).length === 1 ? true : undefined))
    await waitFor(() => (t.container.openAgents() === 2 ? true : undefined))
    // Another was closed to make room: whichever was idle first (a watcher sync keeps one busy).
    const rows = await agents()
    expect(rows.filter((r) => r.open).map((r) => r.id)).toEqual(expect.arrayContaining([closed, 'main']))
    expect(rows.filter((r) => !r.open)).toEqual([expect.objectContaining({ files: 1, chunks: 1 })])
  })

  it('lists agents not opened since the start with the counts of their index files', async () => {
    const first = await useAgentsApp()
    for (const agent of ['ana', 'ben']) {
      await first.call('PUT', '/files/MEMORY.md', { agent, payload: { content: `# ${agent}\n- one note\n` } })
    }
    await first.app.close()
    t = await useAgentsApp({ ws: first.ws })
    t.writeAgentFile('cy', 'MEMORY.md', '- on disk, never indexed\n')
    expect(await agents()).toEqual([
      { id: 'ana', open: false, users: 0, files: 1, chunks: 1, lastSync: null },
      { id: 'ben', open: false, users: 0, files: 1, chunks: 1, lastSync: null },
      { id: 'cy', open: false, users: 0, files: 0, chunks: 0, lastSync: null },
      { id: 'main', open: true, users: 0, files: 0, chunks: 0, lastSync: null },
    ])
    expect(t.container.openAgents()).toBe(0)
  })

  // SQLite files (PostgreSQL's counterpart: test/postgres/).
  it.skipIf(onPostgres())(
    'rebuilds an agent index that is not a database any more from the agent’s files',
    async () => {
      const first = await useAgentsApp({ env: { MNEMO_INDEX_ON_START: 'true' } })
      await first.call('PUT', '/files/MEMORY.md', { agent: 'ana', payload: { content: '- ana keeps bees.\n' } })
      await first.app.close()
      fs.writeFileSync(path.join(first.ws.dataDir, 'agents', 'ana.sqlite'), Buffer.alloc(4096, 0x5a))
      t = await useAgentsApp({ ws: first.ws, env: { MNEMO_INDEX_ON_START: 'true' } })
      expect((await hits('ana', 'bees')).map((r) => r.path)).toEqual(['MEMORY.md'])
    },
  )

  it('lands 8 agents × 50 concurrent flushes in 8 separate day files, none lost, none crossed', async () => {
    // All 50 of each agent in progress at once (one agent's limit would queue or refuse most of them).
    t = await useAgentsApp({ env: { MNEMO_AGENT_MAX_CONCURRENT: '50' } })
    const ids = Array.from({ length: 8 }, (_, i) => `agent-${i}`)
    const flushes = ids.flatMap((agent) =>
      Array.from({ length: 50 }, (_, n) =>
        t.call('POST', '/flush', {
          agent,
          payload: {
            entries: [`- ${agent} note ${n}`, `  detail ${n} of ${agent}`],
            date: '2026-03-01',
            flushId: `${agent}:${n}`,
          },
        }),
      ),
    )
    const answers = await Promise.all(flushes)
    for (const res of answers) expect(res.statusCode, res.body).toBe(200)
    for (const agent of ids) {
      const day = fs.readFileSync(path.join(t.agentsDir, agent, 'memory/2026-03-01.md'), 'utf8')
      const notes = day.split('\n').filter((line) => line.startsWith('- '))
      expect(notes.sort()).toEqual(Array.from({ length: 50 }, (_, n) => `- ${agent} note ${n}`).sort())
      expect(day.match(/^## .*$/gm)).toHaveLength(50)
      for (const other of ids.filter((o) => o !== agent)) expect(day).not.toContain(`${other} `)
      // Every answer names lines of its own agent's file that hold its own note.
      for (const [i, res] of answers.entries()) {
        if (Math.floor(i / 50) !== ids.indexOf(agent)) continue
        const { startLine, endLine } = res.json<{ startLine: number; endLine: number }>()
        const lines = day.split('\n').slice(startLine - 1, endLine)
        expect(lines.at(-2)).toBe(`- ${agent} note ${i % 50}`)
      }
      const found = await hits(agent, `${agent} note 7`)
      expect(found[0]?.path).toBe('memory/2026-03-01.md')
    }
    const retry = await t.call('POST', '/flush', {
      agent: 'agent-3',
      payload: { entries: ['- agent-3 note 9', '  detail 9 of agent-3'], date: '2026-03-01', flushId: 'agent-3:9' },
    })
    expect(retry.json()).toMatchObject({ replayed: true })
  })

  it('embeds a text two agents both hold once, in one shared cache', async () => {
    const server = await startScriptedServer([{ reply: embeddingsReply(8) }])
    cleanups.push(server.close)
    t = await useAgentsApp({
      env: {
        MNEMO_EMBED_PROVIDER: 'openai',
        MNEMO_EMBED_BASE_URL: `${server.url}/v1`,
        MNEMO_EMBED_MODEL: 'shared-embedder',
        MNEMO_EMBED_DIMENSIONS: '8',
      },
    })
    const note = '# Facts\n- The office wifi password is on the fridge.\n'
    // At the same time, then once more later: one provider call in all.
    await Promise.all(
      ['ann', 'bo'].map((agent) => t.call('PUT', '/files/MEMORY.md', { agent, payload: { content: note } })),
    )
    await t.call('PUT', '/files/MEMORY.md', { agent: 'cid', payload: { content: note } })
    const inputs = server.requests.flatMap((r) => (r.body as { input: string[] }).input)
    expect(inputs.filter((i) => i.includes('wifi password'))).toHaveLength(1)
    for (const agent of ['ann', 'bo', 'cid']) {
      const res = await t.call('POST', '/search', {
        agent,
        payload: { query: 'where is the wifi password', minScore: 0 },
      })
      expect(res.json()).toMatchObject({ mode: 'hybrid', results: [{ path: 'MEMORY.md' }] })
      expect((await t.call('GET', '/index', { agent })).json()).toMatchObject({ vectorsPending: 0 })
    }
    const queries = server.requests.flatMap((r) => (r.body as { input: string[] }).input)
    expect(queries.filter((i) => i.includes('where is the wifi password'))).toHaveLength(1)
  })
})
