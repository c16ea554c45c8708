/**
 * Read grants (MNEMO_AGENT_GRANTS=reviewer:coder): the reviewer searches and reads coder's
 * memory as space agent:coder under agents/coder/, never writes it; grants are one-way,
 * and an agent without a grant gets the answers it got before grants existed.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { useAgentsApp, type AgentsApp } from '../helpers/agents-app.js'
import { createTempWorkspace } from '../helpers/temp-workspace.js'
import type { SearchHit } from '../helpers/api-types.js'

const TOKENS = {
  reviewer: 'reviewer-token-0123456789',
  coder: 'coder-token-0123456789abc',
  ops: 'ops-token-0123456789abcdef',
}
const CODER_NOTE = 'memory/2026-03-01.md'

let t: AgentsApp | undefined

/** Coder, reviewer (granted coder) and ops (no grant), each with a token and a note written through the API. */
async function withGrant(env: Record<string, string> = {}): Promise<AgentsApp> {
  t = await useAgentsApp({
    team: true,
    env: {
      MNEMO_AGENT_TOKENS: Object.entries(TOKENS)
        .map(([id, token]) => `${id}:${token}`)
        .join(','),
      MNEMO_AGENT_GRANTS: 'reviewer:coder',
      ...env,
    },
  })
  const notes = [
    ['coder', CODER_NOTE, '# Build\n- Coder pinned zlib to 1.3.1 because of CVE-2026-1234.\n'],
    ['coder', 'MEMORY.md', '- Coder prefers squash merges for the zlib upgrade.\n'],
    ['reviewer', CODER_NOTE, '- Reviewer asked for a fuzzing job before any zlib bump.\n'],
    ['ops', CODER_NOTE, '- Ops rotates the pager every Monday.\n'],
  ] as const
  for (const [agent, rel, content] of notes) {
    const res = await as(agent, 'PUT', `/files/${rel}`, { content })
    expect(res.statusCode, res.body).toBe(201)
  }
  return t
}

function as(agent: keyof typeof TOKENS, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) {
  if (!t) throw new Error('no app')
  return t.call(method, url, { token: TOKENS[agent], ...(payload === undefined ? {} : { payload }) })
}

async function search(agent: keyof typeof TOKENS, body: Record<string, unknown>): Promise<SearchHit[]> {
  const res = await as(agent, 'POST', '/search', { minScore: 0, ...body })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ results: SearchHit[] }>().results
}

/** Every file under a folder with its content, to show that nothing changed on disk. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const abs = path.join(entry.parentPath, entry.name)
    out[path.relative(dir, abs)] = fs.readFileSync(abs, 'utf8')
  }
  return out
}

describe('read grants between agents', () => {
  it('lets the reviewer find coder’s note, labelled agent:coder under agents/coder/, and read its lines', async () => {
    await withGrant()
    const hits = await search('reviewer', { query: 'zlib CVE-2026-1234' })
    const coders = hits.filter((h) => h.space === 'agent:coder')
    expect(coders.map((h) => h.path)).toEqual([`agents/coder/${CODER_NOTE}`, 'agents/coder/MEMORY.md'])
    expect(coders[0]?.snippet).toContain('pinned zlib')
    // The reviewer's own note is still its own, beside coder's.
    expect(hits.filter((h) => h.space === 'agent').map((h) => h.path)).toEqual([CODER_NOTE])

    const hit = coders[0] as SearchHit
    const read = await as(
      'reviewer',
      'GET',
      `/files/${hit.path}?from=${hit.startLine}&lines=${hit.endLine - hit.startLine + 1}`,
    )
    expect(read.statusCode, read.body).toBe(200)
    expect(read.json()).toMatchObject({ path: `agents/coder/${CODER_NOTE}`, from: hit.startLine })
    expect(read.json<{ text: string }>().text).toContain('Coder pinned zlib to 1.3.1')

    const list = await as('reviewer', 'GET', '/files')
    const listed = list.json<{ files: { path: string; space: string }[] }>().files
    expect(listed.filter((f) => f.space === 'agent:coder').map((f) => f.path)).toEqual([
      'agents/coder/MEMORY.md',
      `agents/coder/${CODER_NOTE}`,
    ])
  })

  it('narrows to the granted space with spaces or an agents/coder/ pathPrefix, and leaves it out when not named', async () => {
    await withGrant()
    const only = await search('reviewer', { query: 'zlib', spaces: ['agent:coder'] })
    expect(new Set(only.map((h) => h.space))).toEqual(new Set(['agent:coder']))
    const own = await search('reviewer', { query: 'zlib', spaces: ['agent', 'team'] })
    expect(own.map((h) => h.space)).toEqual(['agent'])
    const prefixed = await search('reviewer', { query: 'zlib', pathPrefix: 'agents/coder/memory/' })
    expect(prefixed.map((h) => h.path)).toEqual([`agents/coder/${CODER_NOTE}`])
    // Coder's MEMORY.md is coder's private memory: a group-chat search leaves it out too.
    const shared = await search('reviewer', { query: 'squash merges zlib', scope: 'shared', spaces: ['agent:coder'] })
    expect(shared.map((h) => h.path)).toEqual([`agents/coder/${CODER_NOTE}`])
  })

  it('refuses every write by the reviewer to coder’s memory with 403 PATH_READ_ONLY and changes nothing', async () => {
    const app = await withGrant()
    const coderDir = path.join(app.agentsDir, 'coder')
    const before = snapshot(coderDir)
    const target = `/files/agents/coder/${CODER_NOTE}`
    const sha = (await as('reviewer', 'GET', target)).json<{ sha256: string }>().sha256
    const refused = [
      await as('reviewer', 'PUT', target, { content: '- overwritten' }),
      await as('reviewer', 'POST', target, { content: '- appended' }),
      await as('reviewer', 'DELETE', target),
      await as('reviewer', 'PUT', '/files/agents/coder/memory/new.md', { content: '- new' }),
      await as('reviewer', 'PUT', '/files/agents/coder/MEMORY.md', { content: '- overwritten' }),
      await app.call('PUT', target, {
        token: TOKENS.reviewer,
        payload: { content: '- overwritten' },
        headers: { 'if-match': `"${sha}"` },
      }),
    ]
    for (const res of refused) {
      expect(res.statusCode, res.body).toBe(403)
      expect(res.json()).toMatchObject({ code: 'PATH_READ_ONLY', details: { space: 'agent:coder' } })
    }
    // A flush goes to the acting agent's own day file; signing it as coder is refused.
    const flush = await as('reviewer', 'POST', '/flush', { content: '- as coder', agentId: 'coder' })
    expect(flush.statusCode).toBe(403)
    expect(flush.json()).toMatchObject({ code: 'AGENT_FORBIDDEN' })
    const sync = await as('reviewer', 'POST', '/index?wait=true', { full: true })
    expect(sync.statusCode, sync.body).toBe(200)
    const mcp = await app.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: {
        authorization: `Bearer ${TOKENS.reviewer}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      payload: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'memory_write', arguments: { path: `agents/coder/${CODER_NOTE}`, content: '- via mcp' } },
      },
    })
    const tool = mcp.json<{ result: { isError: boolean; content: { text: string }[] } }>().result
    expect(tool.isError).toBe(true)
    expect(tool.content[0]?.text).toMatch(/^PATH_READ_ONLY: /)

    expect(snapshot(coderDir)).toEqual(before)
    const still = await search('coder', { query: 'zlib CVE-2026-1234', spaces: ['agent'] })
    expect(still.map((h) => h.path)).toEqual([CODER_NOTE, 'MEMORY.md'])
  })

  it('is one-way: coder neither finds nor reads the reviewer’s memory', async () => {
    await withGrant()
    const hits = await search('coder', { query: 'fuzzing job zlib bump' })
    expect(hits.map((h) => h.space)).not.toContain('agent:reviewer')
    expect(hits.map((h) => h.snippet).join('\n')).not.toContain('fuzzing')
    const named = await as('coder', 'POST', '/search', { query: 'fuzzing', spaces: ['agent:reviewer'] })
    expect(named.statusCode).toBe(400)
    expect(named.json()).toMatchObject({ code: 'VALIDATION_FAILED' })
    const read = await as('coder', 'GET', `/files/agents/reviewer/${CODER_NOTE}`)
    expect(read.statusCode).toBeGreaterThanOrEqual(400)
    expect(read.body).not.toContain('fuzzing')
    const write = await as('coder', 'PUT', `/files/agents/reviewer/${CODER_NOTE}`, { content: '- x' })
    expect(write.statusCode).toBeGreaterThanOrEqual(400)
    expect(fs.readFileSync(path.join(t?.agentsDir ?? '', 'reviewer', CODER_NOTE), 'utf8')).not.toContain('- x')
  })

  it('gives an agent without a grant the same answers for coder as for an agent that does not exist', async () => {
    await withGrant()
    const hits = await search('ops', { query: 'zlib CVE-2026-1234 squash merges' })
    expect(hits.map((h) => h.space)).not.toContain('agent:coder')
    expect(hits.map((h) => h.snippet).join('\n')).not.toContain('zlib')
    const strip = (res: { statusCode: number; json: () => Record<string, unknown> }) => {
      const { requestId: _id, ...rest } = res.json()
      return { status: res.statusCode, ...rest }
    }
    const pairs: [string, unknown][] = [
      ['GET', undefined],
      ['PUT', { content: '- x' }],
      ['DELETE', undefined],
    ]
    for (const [method, payload] of pairs) {
      const real = await as('ops', method as 'GET', `/files/agents/coder/${CODER_NOTE}`, payload)
      const none = await as('ops', method as 'GET', `/files/agents/nobody/${CODER_NOTE}`, payload)
      expect(real.statusCode).toBeGreaterThanOrEqual(400)
      expect(strip(real)).toEqual(strip(none))
    }
    for (const space of ['agent:coder', 'agent:nobody']) {
      const res = await as('ops', 'POST', '/search', { query: 'zlib', spaces: [space] })
      expect(res.statusCode).toBe(400)
      expect(res.json<{ message: string }>().message).toBe(`No read grant for ${space} (MNEMO_AGENT_GRANTS)`)
    }
    const list = await as('ops', 'GET', '/files')
    expect(list.json<{ files: { space: string }[] }>().files.map((f) => f.space)).not.toContain('agent:coder')
  })

  it('reads an owner with a token but no memory yet as empty', async () => {
    t = await useAgentsApp({
      env: {
        MNEMO_AGENT_TOKENS: `reviewer:${TOKENS.reviewer},coder:${TOKENS.coder}`,
        MNEMO_AGENT_GRANTS: 'reviewer:coder',
      },
    })
    expect(await search('reviewer', { query: 'zlib', spaces: ['agent:coder'] })).toEqual([])
    const read = await as('reviewer', 'GET', `/files/agents/coder/${CODER_NOTE}`)
    expect(read.statusCode).toBe(404)
    expect(read.json()).toMatchObject({ code: 'FILE_NOT_FOUND' })
    expect(fs.existsSync(path.join(t.agentsDir, 'coder'))).toBe(false)
  })

  it('gives up with 503 OVERLOADED instead of waiting forever when readers hold every open place', async () => {
    const ids = ['o1', 'o2', 'r1', 'r2']
    const token = (id: string) => `${id}-token-0123456789abcdef`
    t = await useAgentsApp({
      env: {
        MNEMO_AGENT_TOKENS: ids.map((id) => `${id}:${token(id)}`).join(','),
        MNEMO_AGENT_GRANTS: 'r1:o1,r2:o2',
        MNEMO_MAX_OPEN_AGENTS: '2',
      },
    })
    const app = t
    const call = (id: string, method: 'POST' | 'PUT', url: string, payload: unknown) =>
      app.call(method, url, { token: token(id), payload })
    // Written in this order, the owners are closed and the readers hold the two places.
    for (const id of ids) {
      const res = await call(id, 'PUT', `/files/${CODER_NOTE}`, { content: `- ${id} keeps the KESTREL runbook.` })
      expect(res.statusCode, res.body).toBe(201)
    }
    const searchOwner = (reader: string) =>
      call(reader, 'POST', '/search', { query: 'KESTREL runbook', minScore: 0, spaces: [`agent:o${reader.slice(1)}`] })
    const both = await Promise.all([searchOwner('r1'), searchOwner('r2')])
    const refused = both.filter((res) => res.statusCode !== 200)
    expect(refused.length).toBeGreaterThan(0)
    for (const res of refused) {
      expect(res.statusCode).toBe(503)
      expect(res.json()).toMatchObject({ code: 'OVERLOADED' })
      expect(res.headers['retry-after']).toBe('1')
    }
    // Nothing is left waiting: each reader, asking again, finds its owner's note.
    for (const reader of ['r1', 'r2']) {
      const res = await searchOwner(reader)
      expect(res.statusCode, res.body).toBe(200)
      expect(res.json<{ results: SearchHit[] }>().results.map((h) => h.space)).toEqual([`agent:o${reader.slice(1)}`])
    }
  })

  it('fails to start on a malformed grant or one naming an unknown agent, naming the entry', async () => {
    const ws = createTempWorkspace()
    try {
      await expect(
        useAgentsApp({
          ws,
          env: {
            MNEMO_AGENT_TOKENS: `reviewer:${TOKENS.reviewer}`,
            MNEMO_AGENT_GRANTS: 'reviewer:codr,reviewer',
          },
        }),
      ).rejects.toMatchObject({
        code: 'CONFIG_INVALID',
        issues: [
          'MNEMO_AGENT_GRANTS: entry 1 ("reviewer":"codr"): no agent "codr" (not main, no token in MNEMO_AGENT_TOKENS, no folder in MNEMO_AGENTS_DIR)',
          'MNEMO_AGENT_GRANTS: entry 2: is not of the form reader:owner',
        ],
      })
    } finally {
      ws.cleanup()
    }
  })
})
