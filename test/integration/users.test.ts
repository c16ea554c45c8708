/**
 * Users inside an agent (SPEC §11), through the API on both engines (POSTGRES_API_SUITE):
 * alice's memory lives under the agent's users/alice/, is searched (keyword and vector) and
 * read by requests for alice only, and every route a request for bob — or for no user, or
 * under a grant — could use to read, find, list, write, delete, export or hear about it is
 * refused or answers nothing, with alice's files unchanged on disk.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { AddressInfo } from 'node:net'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { useAgentsApp, type AgentsApp } from '../helpers/agents-app.js'
import type { SearchHit } from '../helpers/api-types.js'
import { createFakeEmbedder } from '../helpers/fake-embedder.js'
import { openSse, type SseClient } from '../helpers/sse-client.js'
import { makeTar, untar } from '../helpers/tar-archive.js'

const ADMIN = 'admin-token-0123456789abcdef'
const TOKENS = {
  support: 'support-token-0123456789ab',
  alice: 'support-alice-token-012345',
  bob: 'support-bob-token-0123456789',
  reader: 'reader-token-0123456789abcd',
}
const ROOT = path.resolve(import.meta.dirname, '../..')
const ALICE_NOTE = 'Alice keeps her zebracorn passphrase in the blue notebook.'
const SHARED_NOTE = 'Support escalates refunds over 500 EUR to finance.'

let t: AgentsApp | undefined
const closers: (() => unknown)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

type Who = keyof typeof TOKENS | 'admin'
type Call = { who: Who; user?: string; agent?: string; payload?: unknown; headers?: Record<string, string> }

function as(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, c: Call) {
  if (!t) throw new Error('no app')
  const headers: Record<string, string> = { ...c.headers }
  if (c.user !== undefined) headers['x-mnemo-user'] = c.user
  const agent = c.agent ?? (c.who === 'admin' ? 'support' : undefined)
  return t.call(method, url, {
    token: c.who === 'admin' ? ADMIN : TOKENS[c.who],
    ...(agent !== undefined && { agent }),
    ...(c.payload !== undefined && { payload: c.payload }),
    headers,
  })
}

/** Every file under a folder with its content. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  if (!fs.existsSync(dir)) return out
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const abs = path.join(entry.parentPath, entry.name)
    out[path.relative(dir, abs)] = fs.readFileSync(abs, 'utf8')
  }
  return out
}

/**
 * Agent support with a shared note, alice's flush and bob's note (each through its own
 * user-bound token), a reader with a grant on support, and a team; vectors from a fake
 * embedder so vector search is tried too.
 */
async function seeded(
  env: Record<string, string> = {},
): Promise<{ app: AgentsApp; aliceDir: string; aliceFile: string }> {
  t = await useAgentsApp({
    team: true,
    env: {
      MNEMO_API_TOKEN: ADMIN,
      MNEMO_AGENT_TOKENS: [
        `support:${TOKENS.support}`,
        `support/alice:${TOKENS.alice}`,
        `support/bob:${TOKENS.bob}`,
        `reader:${TOKENS.reader}`,
      ].join(','),
      MNEMO_AGENT_GRANTS: 'reader:support',
      MNEMO_TEAM_WRITABLE: 'true',
      ...env,
    },
    overrides: { embedder: createFakeEmbedder({ dims: 64 }).provider },
  })
  const shared = await as('PUT', '/files/MEMORY.md', { who: 'support', payload: { content: `- ${SHARED_NOTE}\n` } })
  expect(shared.statusCode, shared.body).toBe(201)
  const flushed = await as('POST', '/flush', { who: 'alice', payload: { content: ALICE_NOTE, sessionId: 's-alice' } })
  expect(flushed.statusCode, flushed.body).toBe(200)
  const aliceFile = flushed.json<{ path: string }>().path
  expect(aliceFile).toMatch(/^users\/alice\/memory\/\d{4}-\d{2}-\d{2}\.md$/)
  const bob = await as('PUT', '/files/users/bob/MEMORY.md', { who: 'bob', payload: { content: '- Bob drinks tea.\n' } })
  expect(bob.statusCode, bob.body).toBe(201)
  return { app: t, aliceDir: path.join(t.agentsDir, 'support/users/alice'), aliceFile }
}

async function search(c: Call, body: Record<string, unknown>): Promise<SearchHit[]> {
  const res = await as('POST', '/search', { ...c, payload: { minScore: 0, ...body } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ results: SearchHit[] }>().results
}

/** Whether an answer holds anything of alice's: her note's words or a path of hers (queries may name the words). */
const mentionsAlice = (body: string) => /keeps her zebracorn|users\/alice/.test(body)

/** Keyword hits only: a chunk must hold a query term (minScore 0 alone would list every vector neighbour). */
const find = (c: Call, query: string, extra: Record<string, unknown> = {}) =>
  search(c, { query, mode: 'keyword', ...extra })

describe('users inside an agent', () => {
  it("keeps alice's memory under users/alice/ and finds it for alice, beside the shared and team memory", async () => {
    const { app, aliceFile } = await seeded()
    expect(fs.readFileSync(path.join(app.agentsDir, 'support', aliceFile), 'utf8')).toContain(ALICE_NOTE)
    for (const mode of ['keyword', 'hybrid', 'vector']) {
      const hits = await search({ who: 'alice' }, { query: 'zebracorn passphrase notebook', mode })
      expect(hits[0], mode).toMatchObject({ path: aliceFile, space: 'user' })
    }
    const both = await search({ who: 'alice' }, { query: 'refunds finance zebracorn' })
    expect(new Set(both.map((h) => h.space))).toEqual(new Set(['agent', 'user']))
    // The agent token names the user with the header, as a bot serving many people does.
    const named = await find({ who: 'support', user: 'alice' }, 'zebracorn')
    expect(named.map((h) => h.path)).toEqual([aliceFile])
    const read = await as('GET', `/files/${aliceFile}`, { who: 'alice' })
    expect(read.statusCode).toBe(200)
    expect(read.json<{ path: string; content: string }>()).toMatchObject({ path: aliceFile })
    const list = await as('GET', '/files', { who: 'alice' })
    const paths = list.json<{ files: { path: string; space: string }[] }>().files
    expect(paths).toContainEqual(expect.objectContaining({ path: aliceFile, space: 'user' }))
    expect(paths.map((f) => f.path)).toContain('MEMORY.md')
    expect(paths.map((f) => f.path).filter((p) => p.startsWith('users/bob'))).toEqual([])
  })

  it("never shows alice's memory to bob, to the agent without a user, or to a granted reader", async () => {
    const { aliceDir, aliceFile } = await seeded()
    const before = snapshot(aliceDir)
    const outsiders: Call[] = [
      { who: 'bob' },
      { who: 'support', user: 'bob' },
      { who: 'support' },
      { who: 'admin' },
      { who: 'reader' },
    ]
    for (const c of outsiders) {
      const label = `${c.who}/${c.user ?? '-'}`
      for (const mode of ['keyword', 'hybrid', 'vector']) {
        const hits = await search(c, { query: 'zebracorn passphrase blue notebook', mode })
        expect(
          hits.filter((h) => mentionsAlice(JSON.stringify(h))),
          `${label} ${mode}`,
        ).toEqual([])
      }
      const prefixed = await as('POST', '/search', {
        ...c,
        payload: { query: 'zebracorn', pathPrefix: 'users/alice/' },
      })
      expect(mentionsAlice(prefixed.body), label).toBe(false)
      const list = await as('GET', '/files', c)
      expect(list.statusCode, label).toBe(200)
      expect(mentionsAlice(list.body), label).toBe(false)
      const status = await as('GET', '/index', c)
      expect(status.statusCode, label).toBe(200)
      expect(mentionsAlice(status.body), label).toBe(false)
      // A file that exists and one that does not are refused alike: nothing says which is which.
      const there = await as('GET', `/files/${aliceFile}`, c)
      const absent = await as('GET', '/files/users/alice/memory/1999-01-01.md', c)
      expect([there.statusCode, there.json().code], label).toEqual([403, 'USER_FORBIDDEN'])
      expect(absent.json().message).toBe(there.json().message)
      // Writes, deletes and supersedes of alice's files.
      const attempts = [
        await as('PUT', `/files/${aliceFile}`, { ...c, payload: { content: 'overwritten' } }),
        await as('POST', `/files/${aliceFile}`, { ...c, payload: { content: 'appended' } }),
        await as('PUT', '/files/users/alice/MEMORY.md', { ...c, payload: { content: 'planted' } }),
        await as('DELETE', `/files/${aliceFile}`, c),
        await as('POST', '/supersede', { ...c, payload: { path: aliceFile, startLine: 1, endLine: 3, content: 'x' } }),
      ]
      for (const res of attempts) expect(res.statusCode, `${label} ${res.body}`).toBe(403)
    }
    // Encoded and disguised paths never lead into users/alice/ either.
    for (const url of [
      `/files/${aliceFile.replaceAll('/', '%2F')}`,
      `/files/./${aliceFile}`,
      `/files/memory/../${aliceFile}`,
      `/files/users//alice/${aliceFile.slice('users/alice/'.length)}`,
      `/files/Users/alice/${aliceFile.slice('users/alice/'.length)}`,
      `/files/users/alice%00/MEMORY.md`,
      '/files/users',
    ]) {
      const res = await as('GET', url, { who: 'bob' })
      expect(res.statusCode, url).toBeGreaterThanOrEqual(400)
      expect(mentionsAlice(res.body.replace(url, '')), url).toBe(false)
    }
    // Nor does a grant: the reader reads the owner's shared memory only.
    const granted = await as('GET', `/files/agents/support/${aliceFile}`, { who: 'reader' })
    expect(granted.statusCode).toBeGreaterThanOrEqual(400)
    expect(mentionsAlice(granted.body.replace(aliceFile, ''))).toBe(false)
    expect(snapshot(aliceDir)).toEqual(before)
  })

  it("refuses a user's folder swapped for a symlink to another user's", async () => {
    const { app, aliceDir } = await seeded()
    const bobDir = path.join(app.agentsDir, 'support/users/bob')
    fs.renameSync(aliceDir, `${aliceDir}.moved`)
    fs.symlinkSync(bobDir, aliceDir)
    const swapped = await as('GET', '/files/users/alice/MEMORY.md', { who: 'alice' })
    expect([swapped.statusCode, swapped.json().code]).toEqual([409, 'PATH_CHANGED'])
    const listed = await as('GET', '/files', { who: 'alice' })
    expect(listed.body).not.toContain('Bob drinks tea')
    const found = await as('POST', '/search', { who: 'alice', payload: { query: 'Bob drinks tea' } })
    expect(found.body).not.toContain('Bob drinks tea')
    fs.rmSync(aliceDir)
    fs.renameSync(`${aliceDir}.moved`, aliceDir)
  })

  it('refuses a new user past MNEMO_MAX_USERS_PER_AGENT, creating nothing', async () => {
    const { app } = await seeded({ MNEMO_MAX_USERS_PER_AGENT: '2' })
    const carol = await as('POST', '/flush', { who: 'support', user: 'carol', payload: { content: 'Carol.' } })
    expect([carol.statusCode, carol.json().code]).toEqual([409, 'USER_LIMIT'])
    expect(fs.existsSync(path.join(app.agentsDir, 'support/users/carol'))).toBe(false)
    // The users there still write.
    const bob = await as('POST', '/flush', { who: 'bob', payload: { content: 'Bob again.' } })
    expect(bob.statusCode).toBe(200)
  })

  it('refuses a bound token naming another user, an invalid user id, and writes outside its own folder', async () => {
    const { aliceDir } = await seeded()
    const before = snapshot(aliceDir)
    const other = await as('POST', '/search', { who: 'bob', user: 'alice', payload: { query: 'zebracorn' } })
    expect([other.statusCode, other.json().code]).toEqual([403, 'USER_FORBIDDEN'])
    for (const bad of ['Alice', '../alice', 'alice/x', '-alice', 'a'.repeat(64)]) {
      const res = await as('POST', '/search', { who: 'support', user: bad, payload: { query: 'x' } })
      expect([res.statusCode, res.json().code], bad).toEqual([400, 'USER_INVALID'])
    }
    for (const file of ['MEMORY.md', 'memory/2026-11-28.md', 'team/MEMORY.md']) {
      const res = await as('PUT', `/files/${file}`, { who: 'alice', payload: { content: 'from alice' } })
      expect([res.statusCode, res.json().code], file).toEqual([403, 'PATH_READ_ONLY'])
    }
    // With If-Match (the write then needs the file, and creates nothing) just the same.
    const shared = await as('GET', '/files/MEMORY.md', { who: 'support' })
    const etag = shared.headers.etag as string
    const sharedBefore = shared.json<{ text: string }>().text
    for (const method of ['PUT', 'POST'] as const) {
      const res = await as(method, '/files/MEMORY.md', {
        who: 'alice',
        payload: { content: '- planted by alice' },
        headers: { 'if-match': etag },
      })
      expect([res.statusCode, res.json().code], method).toEqual([403, 'PATH_READ_ONLY'])
    }
    const after = await as('GET', '/files/MEMORY.md', { who: 'support' })
    expect(after.json<{ text: string }>().text).toBe(sharedBefore)
    const exportOther = await as('GET', '/export', { who: 'bob', user: 'alice' })
    expect(exportOther.statusCode).toBe(403)
    // The admin's metrics name routes and stages, never a user.
    const metrics = await as('GET', '/metrics', { who: 'admin' })
    expect(metrics.statusCode).toBe(200)
    expect(metrics.body).not.toMatch(/alice|bob/)
    expect(snapshot(aliceDir)).toEqual(before)
  })

  it('supersedes by key within the user only, and forgets a session in the user only', async () => {
    await seeded()
    const write = (who: 'alice' | 'bob', text: string) =>
      as('POST', '/flush', { who, payload: { entries: [text], key: 'drink' } })
    expect((await write('bob', 'Bob drinks green tea.')).statusCode).toBe(200)
    expect((await write('alice', 'Alice drinks coffee.')).statusCode).toBe(200)
    const replaced = await write('alice', 'Alice drinks matcha now.')
    expect(replaced.json<{ superseded: { path: string }[] }>().superseded).toEqual([
      expect.objectContaining({ path: expect.stringMatching(/^users\/alice\//) as unknown }),
    ])
    const bobs = await find({ who: 'bob' }, 'drinks green tea')
    expect(bobs.find((h) => h.key === 'drink')).toMatchObject({ status: 'active', space: 'user' })
    const alices = await find({ who: 'alice' }, 'Alice drinks', { includeSuperseded: true })
    expect(alices.filter((h) => h.key === 'drink').map((h) => [h.status, h.snippet.includes('matcha')])).toEqual(
      expect.arrayContaining([
        ['active', true],
        ['superseded', false],
      ]),
    )
    // Bob forgetting alice's session id touches nothing of hers.
    const forgot = await as('POST', '/forget', { who: 'bob', payload: { sessionId: 's-alice' } })
    expect(forgot.json<{ removed: unknown[] }>().removed).toEqual([])
    expect((await find({ who: 'alice' }, 'zebracorn')).length).toBe(1)
    const own = await as('POST', '/forget', { who: 'alice', payload: { sessionId: 's-alice' } })
    expect(own.json<{ removed: { path: string }[] }>().removed).toEqual([
      expect.objectContaining({ path: expect.stringMatching(/^users\/alice\/memory\//) as unknown }),
    ])
    expect(await find({ who: 'alice' }, 'zebracorn')).toEqual([])
  })

  it("exports a user's own memory to it, users with their agent to the admin, and none to the agent alone", async () => {
    const { aliceFile, aliceDir } = await seeded()
    const names = async (c: Omit<Call, 'agent'> & { agent?: string | null }) => {
      const headers: Record<string, string> = { authorization: `Bearer ${c.who === 'admin' ? ADMIN : TOKENS[c.who]}` }
      const agent = c.agent === undefined ? (c.who === 'admin' ? 'support' : undefined) : c.agent
      if (agent) headers['x-mnemo-agent'] = agent
      const res = await (t as AgentsApp).app.inject({ method: 'GET', url: '/export', headers })
      expect(res.statusCode, res.body).toBe(200)
      return [...(await untar(res.rawPayload)).keys()].sort()
    }
    expect(await names({ who: 'alice' })).toEqual([aliceFile])
    expect(await names({ who: 'bob' })).toEqual(['users/bob/MEMORY.md'])
    expect(await names({ who: 'support' })).toEqual(['MEMORY.md'])
    expect(await names({ who: 'admin' })).toEqual(['MEMORY.md', aliceFile, 'users/bob/MEMORY.md'].sort())
    const deployment = await names({ who: 'admin', agent: null })
    expect(deployment).toContain(`agents/support/${aliceFile}`)

    // Imports: bob cannot plant into alice's folder, the agent token cannot reach users/ at all.
    const before = snapshot(aliceDir)
    const planted = await makeTar([{ name: 'users/alice/MEMORY.md', body: '- planted\n' }])
    for (const c of [{ who: 'bob' }, { who: 'support' }] as Call[]) {
      const res = await t?.app.inject({
        method: 'POST',
        url: '/import',
        headers: {
          authorization: `Bearer ${TOKENS[c.who as 'bob']}`,
          'content-type': 'application/x-tar',
        },
        payload: planted,
      })
      expect(res?.statusCode, res?.body).toBe(403)
    }
    expect(snapshot(aliceDir)).toEqual(before)
    // Alice's own archive goes back into alice's folder.
    const mine = await makeTar([{ name: 'users/alice/MEMORY.md', body: '- Alice moved to Lyon.\n' }])
    const res = await t?.app.inject({
      method: 'POST',
      url: '/import',
      headers: { authorization: `Bearer ${TOKENS.alice}`, 'content-type': 'application/x-tar' },
      payload: mine,
    })
    expect(res?.statusCode, res?.body).toBe(200)
    expect(fs.readFileSync(path.join(aliceDir, 'MEMORY.md'), 'utf8')).toContain('Lyon')
    expect(await find({ who: 'bob' }, 'Alice moved to Lyon')).toEqual([])
    expect((await find({ who: 'alice' }, 'Lyon')).map((h) => h.path)).toEqual(['users/alice/MEMORY.md'])
  })

  it("lists users to the admin, and deletes a user's memory: files and index, with what was removed", async () => {
    const { aliceDir, aliceFile } = await seeded()
    const listed = await as('GET', '/users', { who: 'admin' })
    expect(listed.statusCode, listed.body).toBe(200)
    expect(listed.json<{ users: { id: string; files: number }[] }>().users.map((u) => [u.id, u.files])).toEqual([
      ['alice', 1],
      ['bob', 1],
    ])
    // GET /agents counts them from their folders (the console's overview polls it).
    const usersOf = async () =>
      Object.fromEntries(
        (await as('GET', '/agents', { who: 'admin' }))
          .json<{ agents: { id: string; users: number }[] }>()
          .agents.map((a) => [a.id, a.users]),
      )
    expect(await usersOf()).toMatchObject({ main: 0, support: 2 })
    for (const c of [{ who: 'support' }, { who: 'alice' }] as Call[]) {
      expect((await as('GET', '/users', c)).statusCode).toBe(403)
    }
    const byBob = await as('DELETE', '/users/alice', { who: 'bob' })
    expect([byBob.statusCode, byBob.json().code]).toEqual([403, 'USER_FORBIDDEN'])
    expect((await as('DELETE', '/users/Alice', { who: 'admin' })).json().code).toBe('USER_INVALID')
    expect(fs.existsSync(aliceDir)).toBe(true)

    const removed = await as('DELETE', '/users/alice', { who: 'alice' })
    expect(removed.statusCode, removed.body).toBe(200)
    expect(removed.json()).toEqual({ agent: 'support', user: 'alice', files: [aliceFile] })
    expect(fs.existsSync(aliceDir)).toBe(false)
    expect(await find({ who: 'alice' }, 'zebracorn passphrase')).toEqual([])
    expect((await as('GET', '/users', { who: 'admin' })).json<{ users: { id: string }[] }>().users).toEqual([
      expect.objectContaining({ id: 'bob' }),
    ])
    expect(await usersOf()).toMatchObject({ main: 0, support: 1 })
    // Alice may start again: her next write makes a new, empty memory.
    const again = await as('POST', '/flush', { who: 'alice', payload: { content: 'Alice is back.' } })
    expect(again.statusCode, again.body).toBe(200)
    expect((await find({ who: 'alice' }, 'zebracorn')).length).toBe(0)
    expect((await find({ who: 'alice' }, 'Alice is back')).length).toBe(1)
  })

  it("tells bob's event stream and the agent's nothing of alice's writes, and alice's stream all of them", async () => {
    await seeded()
    const app = t as AgentsApp
    await app.app.listen({ host: '127.0.0.1', port: 0 })
    const { port } = app.app.server.address() as AddressInfo
    const open = async (token: string): Promise<SseClient> => {
      const c = await openSse(port, { authorization: `Bearer ${token}` })
      closers.push(() => c.close())
      expect(c.status).toBe(200)
      await c.next((e) => e.event === 'ready')
      return c
    }
    const [alice, bob, agent] = [await open(TOKENS.alice), await open(TOKENS.bob), await open(TOKENS.support)]
    await as('POST', '/flush', { who: 'alice', payload: { content: 'Alice saw the zebracorn again.' } })
    await as('PUT', '/files/memory/shared.md', { who: 'support', payload: { content: '- shared change\n' } })
    const aliceHeard = await alice.next((e) => e.event === 'file.indexed' && String(e.data.path).startsWith('users/'))
    expect(aliceHeard.data).toMatchObject({ space: 'user', agent: 'support', user: 'alice' })
    await alice.next((e) => e.event === 'file.indexed' && e.data.path === 'memory/shared.md')
    await bob.next((e) => e.event === 'file.indexed' && e.data.path === 'memory/shared.md')
    await agent.next((e) => e.event === 'file.indexed' && e.data.path === 'memory/shared.md')
    for (const c of [bob, agent]) expect(mentionsAlice(JSON.stringify(c.events))).toBe(false)
  })

  it('answers MCP tools for bob with nothing of alice, and lists no resource of hers', async () => {
    const { aliceFile } = await seeded()
    const app = t as AgentsApp
    await app.app.listen({ host: '127.0.0.1', port: 0 })
    const { port } = app.app.server.address() as AddressInfo
    const client = new Client({ name: 'users-test', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${TOKENS.support}`, 'x-mnemo-user': 'bob' } },
      }),
    )
    closers.push(() => client.close())
    const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text
    const found = await client.callTool({ name: 'memory_search', arguments: { query: 'zebracorn passphrase' } })
    expect(mentionsAlice(JSON.stringify(found))).toBe(false)
    const got = await client.callTool({ name: 'memory_get', arguments: { path: aliceFile } })
    expect([got.isError, text(got)]).toEqual([true, expect.stringMatching(/^USER_FORBIDDEN/) as unknown])
    const wrote = await client.callTool({ name: 'memory_write', arguments: { path: aliceFile, content: 'x' } })
    expect(wrote.isError).toBe(true)
    const resources = await client.listResources()
    expect(mentionsAlice(JSON.stringify(resources))).toBe(false)
    expect(resources.resources.map((r) => r.uri)).toContain('mnemo:///users/bob/MEMORY.md')
    const flushed = await client.callTool({ name: 'memory_flush', arguments: { content: 'Bob likes rain.' } })
    expect(JSON.stringify(flushed)).toMatch(/users\/bob\/memory\//)

    // mnemo mcp over stdio, acting for bob through MNEMO_USER.
    const stdio = new Client({ name: 'users-test-stdio', version: '1.0.0' })
    await stdio.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', path.join(ROOT, 'src/cli.ts'), 'mcp'],
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          MNEMO_URL: `http://127.0.0.1:${port}`,
          MNEMO_TOKEN: TOKENS.support,
          MNEMO_USER: 'bob',
        },
        stderr: 'pipe',
      }),
    )
    closers.push(() => stdio.close())
    const viaStdio = await stdio.callTool({
      name: 'memory_search',
      arguments: { query: 'zebracorn passphrase', minScore: 0 },
    })
    expect(mentionsAlice(JSON.stringify(viaStdio))).toBe(false)
    const bobs = await stdio.callTool({ name: 'memory_search', arguments: { query: 'Bob likes rain' } })
    expect(JSON.stringify(bobs)).toContain('users/bob/memory/')
    const stdioGet = await stdio.callTool({ name: 'memory_get', arguments: { path: aliceFile } })
    expect([stdioGet.isError, text(stdioGet)]).toEqual([true, expect.stringMatching(/^USER_FORBIDDEN/) as unknown])
  })
})
