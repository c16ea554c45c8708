/**
 * Findings of the review (issue 16, item 7): an agent with a token but no folder yet reads
 * as empty (team memory included) and its team writes create nothing of its own; paths that
 * are not well-formed Unicode are refused (REST and MCP); a flush heading names the acting
 * agent, never a body field.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { useAgentsApp, type AgentsApp } from '../helpers/agents-app.js'
import type { SearchResponse } from '../helpers/api-types.js'

const ADMIN = 'admin-token-0123456789abcdef'
const OPS = 'ops-token-0123456789abcdefgh'
const BOB = 'bob-token-0123456789abcdefgh'

let t: AgentsApp

/** Ops (a token, no folder yet) beside a team memory with one note. */
async function withTeam(env: Record<string, string> = {}) {
  t = await useAgentsApp({
    team: true,
    env: { MNEMO_API_TOKEN: ADMIN, MNEMO_AGENT_TOKENS: `ops:${OPS},bob:${BOB}`, MNEMO_TEAM_WRITABLE: 'true', ...env },
  })
  const team = await t.call('PUT', '/files/team/MEMORY.md', {
    token: ADMIN,
    payload: { content: '# Team\n- Deploys freeze on Fridays after 3 pm.\n' },
  })
  expect(team.statusCode).toBe(201)
  return t
}

const opsDir = () => path.join(t.agentsDir, 'ops')
const opsIndex = () => path.join(t.ws.dataDir, 'agents', 'ops.sqlite')

/** Calls an MCP tool through POST /mcp with `token`; returns the tool result. */
async function mcpTool(token: string, name: string, args: Record<string, unknown>) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/mcp',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ result: { isError?: boolean; content: { text: string }[] } }>().result
}

describe('an agent with a token but no folder yet', () => {
  it('reads as empty, team memory included, and creates nothing until its first accepted write', async () => {
    await withTeam()
    const search = await t.call('POST', '/search', { token: OPS, payload: { query: 'deploys Fridays' } })
    expect(search.statusCode).toBe(200)
    expect(search.json<SearchResponse>().results.map((r) => [r.path, r.space])).toEqual([['team/MEMORY.md', 'team']])
    const list = await t.call('GET', '/files', { token: OPS })
    expect(list.json<{ files: { path: string }[] }>().files.map((f) => f.path)).toEqual(['team/MEMORY.md'])
    const teamFile = await t.call('GET', '/files/team/MEMORY.md', { token: OPS })
    expect(teamFile.json<{ text: string }>().text).toContain('Fridays')
    const mcp = await mcpTool(OPS, 'memory_search', { query: 'deploys Fridays' })
    expect(mcp.content[0]?.text).toContain('team/MEMORY.md#L')

    for (const [method, url, payload, headers, status, code] of [
      ['GET', '/files/MEMORY.md', undefined, {}, 404, 'FILE_NOT_FOUND'],
      ['GET', '/files/notes.txt', undefined, {}, 400, 'PATH_INVALID'],
      ['DELETE', '/files/MEMORY.md', undefined, {}, 404, 'FILE_NOT_FOUND'],
      ['PUT', '/files/MEMORY.md', { content: 'x' }, { 'if-match': 'a'.repeat(64) }, 412, 'PRECONDITION_FAILED'],
    ] as const) {
      const res = await t.call(method, url, { token: OPS, payload, headers })
      expect(res.statusCode, `${method} ${url}`).toBe(status)
      expect(res.json()).toMatchObject({ code })
    }
    const status = await t.call('GET', '/index', { token: OPS })
    expect(status.json()).toMatchObject({ files: 0, chunks: 0, watching: false, watch: { state: 'off' } })
    expect((await t.call('POST', '/index?wait=true', { token: OPS, payload: {} })).statusCode).toBe(200)
    expect((await t.call('POST', '/flush', { token: OPS, payload: {} })).json()).toEqual({
      indexed: true,
      drained: true,
    })
    // The admin sees the same agent the same way.
    const asAdmin = await t.call('POST', '/search', { token: ADMIN, agent: 'ops', payload: { query: 'Fridays' } })
    expect(asAdmin.json<SearchResponse>().results).toHaveLength(1)
    expect(fs.existsSync(opsDir())).toBe(false)
    expect(fs.existsSync(opsIndex())).toBe(false)

    const first = await t.call('PUT', '/files/MEMORY.md', { token: OPS, payload: { content: '- ops owns Kafka\n' } })
    expect(first.statusCode).toBe(201)
    const own = await t.call('POST', '/search', { token: OPS, payload: { query: 'Kafka' } })
    expect(own.json<SearchResponse>().results.map((r) => r.path)).toEqual(['MEMORY.md'])
  })

  it('writes team memory without creating its own folder', async () => {
    await withTeam()
    const res = await t.call('POST', '/files/team/memory/2026-03-01.md', {
      token: OPS,
      payload: { content: '- ops rotated the staging certificate' },
    })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ path: 'team/memory/2026-03-01.md', indexed: true })
    expect(fs.readFileSync(path.join(t.teamDir, 'memory/2026-03-01.md'), 'utf8')).toContain('ops rotated')
    expect(fs.existsSync(opsDir())).toBe(false)
    expect(fs.existsSync(opsIndex())).toBe(false)
    // An agent with neither a token nor a folder is still unknown, for team paths too.
    const unknown = await t.call('PUT', '/files/team/memory/x.md', {
      token: ADMIN,
      agent: 'zed',
      payload: { content: '- zed' },
    })
    expect(unknown.json()).toMatchObject({ code: 'AGENT_NOT_FOUND' })
    expect(fs.existsSync(path.join(t.agentsDir, 'zed'))).toBe(false)
    expect(fs.existsSync(path.join(t.teamDir, 'memory/x.md'))).toBe(false)
  })
})

describe('paths that are not well-formed Unicode', () => {
  const SPELLINGS = ['\ud800', '\udbff', '\udc00', '\udfff']

  it('are refused with 400 PATH_INVALID through MCP, each spelling, writing nothing', async () => {
    await withTeam()
    await t.call('PUT', '/files/MEMORY.md', { token: OPS, payload: { content: '- ops' } })
    for (const lone of SPELLINGS) {
      for (const [tool, args] of [
        ['memory_write', { path: `memory/${lone}.md`, content: '- note' }],
        ['memory_get', { path: `memory/${lone}.md` }],
        ['memory_write', { path: `team/memory/a${lone}.md`, content: '- note' }],
      ] as const) {
        const res = await mcpTool(OPS, tool, args)
        expect(res.isError, `${tool} ${JSON.stringify(args)}`).toBe(true)
        expect(res.content[0]?.text).toMatch(/^PATH_INVALID: .*well-formed Unicode/)
      }
    }
    expect(fs.readdirSync(opsDir()).sort()).toEqual(['MEMORY.md'])
    expect(fs.existsSync(path.join(t.teamDir, 'memory'))).toBe(false)
  })

  it('are refused with 400 PATH_INVALID through REST, in the URL and in pathPrefix', async () => {
    await withTeam()
    for (const encoded of ['%ED%A0%80', '%ED%AF%BF', '%ED%B0%80', '%ED%BF%BF']) {
      for (const method of ['GET', 'PUT', 'POST', 'DELETE'] as const) {
        const res = await t.call(method, `/files/memory/${encoded}.md`, {
          token: OPS,
          ...(method === 'PUT' || method === 'POST' ? { payload: { content: '- note' } } : {}),
        })
        expect(res.statusCode, `${method} ${encoded}`).toBe(400)
        expect(res.json()).toMatchObject({ code: 'PATH_INVALID' })
      }
    }
    const prefix = await t.call('POST', '/search', {
      token: OPS,
      payload: { query: 'x', pathPrefix: `memory/${SPELLINGS[0]}` },
    })
    expect(prefix.statusCode).toBe(400)
    expect(fs.existsSync(opsDir())).toBe(false)
  })
})

describe('the flush heading', () => {
  it('names the acting agent; a body agentId naming another is 403 AGENT_FORBIDDEN and appends nothing', async () => {
    await withTeam()
    const forged = await t.call('POST', '/flush', {
      token: BOB,
      payload: { content: '- signed as ops', agentId: 'ops', date: '2026-03-02' },
    })
    expect(forged.statusCode).toBe(403)
    expect(forged.json()).toMatchObject({ code: 'AGENT_FORBIDDEN', message: expect.stringContaining('"bob"') })
    expect(fs.existsSync(path.join(t.agentsDir, 'bob'))).toBe(false)

    const asAdmin = await t.call('POST', '/flush', {
      token: ADMIN,
      agent: 'bob',
      payload: { content: '- admin for bob', agentId: 'main', date: '2026-03-02' },
    })
    expect(asAdmin.statusCode).toBe(403)

    for (const payload of [
      { content: '- one', date: '2026-03-02' },
      { content: '- two', agentId: 'bob', date: '2026-03-02' },
    ]) {
      expect((await t.call('POST', '/flush', { token: BOB, payload })).statusCode).toBe(200)
    }
    const day = fs.readFileSync(path.join(t.agentsDir, 'bob/memory/2026-03-02.md'), 'utf8')
    expect(day.match(/^## .*$/gm)).toEqual([
      expect.stringMatching(/ · agent bob$/),
      expect.stringMatching(/ · agent bob$/),
    ])
    expect(day).not.toContain('ops')

    // Main names no agent unless it says "main"; any other name is refused too.
    const main = await t.call('POST', '/flush', { token: ADMIN, payload: { content: '- x', agentId: 'claude' } })
    expect(main.json()).toMatchObject({ code: 'AGENT_FORBIDDEN' })
  })
})
