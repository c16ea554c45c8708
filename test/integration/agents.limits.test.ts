/**
 * Limits on agents (issue 16): how many agents may exist (MNEMO_MAX_AGENTS), how many
 * folders one memory may hold (MNEMO_MAX_FOLDERS_PER_AGENT), that a refused write creates
 * no agent, and that opening many agents at once keeps open spaces, descriptors and
 * inotify watches within MNEMO_MAX_OPEN_AGENTS.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { useAgentsApp, type AgentsApp } from '../helpers/agents-app.js'
import { inotifyWatches, openFds } from '../helpers/proc-handles.js'

let t: AgentsApp

const exists = (p: string) => fs.existsSync(p)
const agentDir = (id: string) => path.join(t.agentsDir, id)
const agentIndex = (id: string) => path.join(t.ws.dataDir, 'agents', `${id}.sqlite`)

/** Calls an MCP tool through POST /mcp as `agent`; returns the tool result. */
async function mcpTool(agent: string, name: string, args: Record<string, unknown>) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/mcp',
    headers: {
      'x-mnemo-agent': agent,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ result: { isError?: boolean; content: { text: string }[] } }>().result
}

describe('MNEMO_MAX_AGENTS', () => {
  it('refuses to create an agent past the limit with 409 AGENT_LIMIT, creating nothing', async () => {
    t = await useAgentsApp({ env: { MNEMO_MAX_AGENTS: '2' } })
    for (const agent of ['ana', 'ben']) {
      expect((await t.call('PUT', '/files/MEMORY.md', { agent, payload: { content: '- x' } })).statusCode).toBe(201)
    }
    for (const [method, url, payload] of [
      ['PUT', '/files/MEMORY.md', { content: '- cy' }],
      ['POST', '/files/memory/2026-03-01.md', { content: '- cy' }],
      ['POST', '/flush', { content: '- cy' }],
    ] as const) {
      const res = await t.call(method, url, { agent: 'cy', payload })
      expect(res.statusCode, `${method} ${url}`).toBe(409)
      expect(res.json()).toMatchObject({ code: 'AGENT_LIMIT', details: { maxAgents: 2 } })
    }
    const mcp = await mcpTool('cy', 'memory_write', { path: 'MEMORY.md', content: '- cy' })
    expect(mcp).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/^AGENT_LIMIT: /) }] })
    expect(exists(agentDir('cy'))).toBe(false)
    expect(exists(agentIndex('cy'))).toBe(false)
    // Agents that exist go on writing; a folder made by hand counts like any other.
    expect((await t.call('POST', '/files/memory/a.md', { agent: 'ana', payload: { content: '- y' } })).statusCode).toBe(
      200,
    )
    fs.rmSync(agentDir('ben'), { recursive: true })
    t.writeAgentFile('dan', 'MEMORY.md', '- by hand\n')
    const cy = await t.call('PUT', '/files/MEMORY.md', { agent: 'cy', payload: { content: '- cy' } })
    expect(cy.json()).toMatchObject({ code: 'AGENT_LIMIT' })
  })
})

describe('a write that would create an agent', () => {
  const big = `- ${'x'.repeat(3000)}`
  it.each([
    ['PUT with a NUL character', 'PUT', '/files/MEMORY.md', { content: 'a\u0000b' }, 400, 'VALIDATION_FAILED'],
    [
      'PUT with a flush marker',
      'PUT',
      '/files/MEMORY.md',
      { content: '<!-- mnemo:flush id=x lines=1 -->' },
      400,
      'VALIDATION_FAILED',
    ],
    [
      'POST with a flush marker',
      'POST',
      '/files/memory/a.md',
      { content: '<!-- mnemo:flush id=x lines=1 -->' },
      400,
      'VALIDATION_FAILED',
    ],
    ['POST with a NUL character', 'POST', '/files/memory/a.md', { content: 'a\u0000b' }, 400, 'VALIDATION_FAILED'],
    ['PUT larger than MNEMO_MAX_FILE_BYTES', 'PUT', '/files/MEMORY.md', { content: big }, 413, 'PAYLOAD_TOO_LARGE'],
    ['POST larger than MNEMO_MAX_FILE_BYTES', 'POST', '/files/memory/a.md', { content: big }, 413, 'PAYLOAD_TOO_LARGE'],
    [
      'a flush with a flush marker',
      'POST',
      '/flush',
      { content: '<!-- mnemo:flush id=x lines=1 -->' },
      400,
      'VALIDATION_FAILED',
    ],
    ['a flush with a NUL character', 'POST', '/flush', { entries: ['a\u0000b'] }, 400, 'VALIDATION_FAILED'],
    ['a flush larger than MNEMO_MAX_FILE_BYTES', 'POST', '/flush', { content: big }, 413, 'PAYLOAD_TOO_LARGE'],
    ['a path that is not writable', 'PUT', '/files/notes.txt', { content: 'x' }, 400, 'PATH_INVALID'],
  ] as const)('is refused for %s and creates nothing', async (_name, method, url, payload, status, code) => {
    t = await useAgentsApp({ env: { MNEMO_MAX_FILE_BYTES: '2048' } })
    const res = await t.call(method, url, { agent: 'eve', payload })
    expect(res.statusCode, res.body).toBe(status)
    expect(res.json()).toMatchObject({ code })
    expect(exists(agentDir('eve'))).toBe(false)
    expect(exists(agentIndex('eve'))).toBe(false)
  })

  it('is refused through MCP memory_write for its content before the agent exists', async () => {
    t = await useAgentsApp()
    for (const content of ['a\u0000b', '<!-- mnemo:flush id=x lines=1 -->']) {
      const res = await mcpTool('eve', 'memory_write', { path: 'memory/2026-03-01.md', content })
      expect(res).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/^VALIDATION_FAILED: /) }] })
    }
    expect(exists(agentDir('eve'))).toBe(false)
    expect(exists(agentIndex('eve'))).toBe(false)
    const ok = await mcpTool('eve', 'memory_write', { path: 'memory/2026-03-01.md', content: '- fine' })
    expect(ok.isError).toBeFalsy()
    expect(fs.readFileSync(path.join(agentDir('eve'), 'memory/2026-03-01.md'), 'utf8')).toBe('- fine\n')
  })
})

describe('MNEMO_MAX_FOLDERS_PER_AGENT', () => {
  it('refuses a write that would create a folder past the cap with 409 FOLDER_LIMIT', async () => {
    t = await useAgentsApp({ env: { MNEMO_MAX_FOLDERS_PER_AGENT: '3' } })
    const put = (rel: string) => t.call('PUT', `/files/${rel}`, { agent: 'ana', payload: { content: `- ${rel}` } })
    // memory/ and memory/a, then memory/a/b: three folders.
    expect((await put('memory/a/x.md')).statusCode).toBe(201)
    expect((await put('memory/a/b/y.md')).statusCode).toBe(201)
    for (const rel of ['memory/c/z.md', 'memory/a/b/c/z.md']) {
      const res = await put(rel)
      expect(res.statusCode, rel).toBe(409)
      expect(res.json()).toMatchObject({ code: 'FOLDER_LIMIT', details: { maxFolders: 3 } })
    }
    expect(exists(path.join(agentDir('ana'), 'memory/c'))).toBe(false)
    expect(exists(path.join(agentDir('ana'), 'memory/a/b/c'))).toBe(false)
    // Existing folders still take files, and a flush its day file.
    expect((await put('memory/a/b/w.md')).statusCode).toBe(201)
    expect((await t.call('POST', '/flush', { agent: 'ana', payload: { content: '- day' } })).statusCode).toBe(200)
    // Folders made by hand count too; hidden ones (never watched) do not.
    fs.rmSync(path.join(agentDir('ana'), 'memory/a/b'), { recursive: true })
    fs.mkdirSync(path.join(agentDir('ana'), 'memory/.hidden'))
    expect((await put('memory/d/z.md')).statusCode).toBe(201)
    fs.mkdirSync(path.join(agentDir('ana'), 'memory/by-hand'))
    expect((await put('memory/e/z.md')).json()).toMatchObject({ code: 'FOLDER_LIMIT' })
  })
})

describe('opening many agents at once', () => {
  it.skipIf(!fs.existsSync('/proc/self/fd'))(
    'keeps open spaces, descriptors and watches within MNEMO_MAX_OPEN_AGENTS',
    async () => {
      const maxOpen = 3
      t = await useAgentsApp({
        env: { MNEMO_MAX_OPEN_AGENTS: String(maxOpen), MNEMO_WATCH: 'true', MNEMO_INDEX_ON_START: 'true' },
      })
      // One agent opened and closed first, so what every space shares already exists.
      await t.call('PUT', '/files/memory/a/x.md', { agent: 'warm', payload: { content: '- warm' } })
      const base = { fds: openFds(), watches: inotifyWatches(), open: t.container.openAgents() }
      const peak = { fds: 0, watches: 0, open: 0 }
      let sampling = true
      const sample = () => {
        peak.fds = Math.max(peak.fds, openFds())
        peak.watches = Math.max(peak.watches, inotifyWatches())
        peak.open = Math.max(peak.open, t.container.openAgents())
        if (sampling) setImmediate(sample)
      }
      sample()
      const agents = Array.from({ length: 24 }, (_, i) => `agent-${i}`)
      const results = await Promise.all(
        agents.map((agent) =>
          t.call('PUT', '/files/memory/notes/today.md', { agent, payload: { content: `- ${agent} was here` } }),
        ),
      )
      sampling = false
      expect(results.map((r) => r.statusCode)).toEqual(agents.map(() => 201))
      expect(peak.open).toBeLessThanOrEqual(maxOpen)
      // Per open space: its folder, its index (with WAL and shared memory files), and one
      // watch per folder (the agent's folder, memory/, memory/notes/).
      expect(peak.fds - base.fds).toBeLessThanOrEqual(maxOpen * 8)
      expect(peak.watches - base.watches).toBeLessThanOrEqual(maxOpen * 3)
      expect(base.open).toBeLessThanOrEqual(1)
      // Every agent's note is there, and found once its agent is opened again.
      for (const agent of agents.slice(0, 4)) {
        const res = await t.call('POST', '/search', { agent, payload: { query: `${agent} was here` } })
        expect(res.json<{ results: { path: string }[] }>().results[0]?.path).toBe('memory/notes/today.md')
      }
      expect(t.container.openAgents()).toBeLessThanOrEqual(maxOpen)
    },
    60_000,
  )
})
