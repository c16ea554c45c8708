import fs from 'node:fs'
import path from 'node:path'
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { SearchRequest } from '../../src/http/schemas/search.schema.js'
import { useAgentsApp, type AgentsApp } from '../helpers/agents-app.js'

const ADMIN = 'admin-token-0123456789abcdef'
const ALICE = 'alice-token-0123456789abcdef'
const ROOT = path.resolve(import.meta.dirname, '../..')

let t: AgentsApp
const clients: Client[] = []
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close()
})

/** The service on a real port, with an admin and an agent token. */
async function listening(): Promise<string> {
  t = await useAgentsApp({ env: { MNEMO_API_TOKEN: ADMIN, MNEMO_AGENT_TOKENS: `alice:${ALICE}` } })
  await t.app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = t.app.server.address() as { port: number }
  return `http://127.0.0.1:${port}`
}

async function httpClient(url: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'mnemo-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }))
  clients.push(client)
  return client
}

const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text
const structured = <T>(r: unknown) => (r as CallToolResult).structuredContent as T

/** Calls every tool and reads the resources, as an agent would in a session, and checks the answers. */
async function session(client: Client, agent: string): Promise<void> {
  const tools = await client.listTools()
  expect(tools.tools.map((tool) => tool.name).sort()).toEqual([
    'memory_delete',
    'memory_feedback',
    'memory_flush',
    'memory_forget',
    'memory_get',
    'memory_list',
    'memory_replace',
    'memory_search',
    'memory_supersede',
    'memory_write',
  ])
  const search = tools.tools.find((tool) => tool.name === 'memory_search')
  expect(search?.description).toContain('path#Lstart-Lend')
  expect(search?.inputSchema).toMatchObject({ required: ['query'], properties: { query: { type: 'string' } } })
  // Every field of POST /search is an argument, whatever fields it gains.
  expect(Object.keys(search?.inputSchema.properties ?? {}).sort()).toEqual(Object.keys(SearchRequest.shape).sort())

  const written = await client.callTool({
    name: 'memory_write',
    arguments: {
      path: 'memory/2026-03-01.md',
      content: `- ${agent} chose Postgres 17 for billing.\n- Launch is on 3 April.`,
    },
  })
  expect(written.isError).toBeFalsy()
  // An agent token's append is an entry: its metadata comment (origin agent) on line 1.
  expect(text(written)).toBe('Appended memory/2026-03-01.md#L1-L3 (searchable now).')
  expect(structured(written)).toMatchObject({ path: 'memory/2026-03-01.md', startLine: 1, endLine: 3, indexed: true })

  const found = await client.callTool({ name: 'memory_search', arguments: { query: 'Postgres billing' } })
  expect(text(found)).toContain('memory/2026-03-01.md#L2-L3')
  expect(text(found)).toContain('from agent')
  expect(text(found)).toContain(`${agent} chose Postgres 17`)
  expect(structured<{ results: { path: string }[] }>(found).results.map((r) => r.path)).toEqual([
    'memory/2026-03-01.md',
  ])
  // The passage reaches the model once, in the text: the structured result says where it is.
  expect(structured(found)).toEqual({
    results: [
      {
        path: 'memory/2026-03-01.md',
        startLine: 2,
        endLine: 3,
        score: expect.any(Number),
        space: 'agent',
        status: 'active',
      },
    ],
    mode: 'keyword',
    requestId: expect.any(String),
  })
  const nothing = await client.callTool({ name: 'memory_search', arguments: { query: 'kubernetes helm chart' } })
  expect(text(nothing)).toContain('nothing relevant is remembered')
  // The search id is in the text too (some clients show the model only the text).
  const searchId = structured<{ requestId: string }>(nothing).requestId
  expect(text(nothing)).toContain(`(search id ${searchId})`)
  const feedback = await client.callTool({
    name: 'memory_feedback',
    arguments: { requestId: searchId, useful: false, note: 'the helm chart notes are missing' },
  })
  expect(text(feedback)).toBe(`Noted: search ${searchId} did not help.`)
  const unknown = await client.callTool({ name: 'memory_feedback', arguments: { requestId: 'nope', useful: true } })
  expect([unknown.isError, text(unknown)]).toEqual([true, expect.stringMatching(/^SEARCH_NOT_FOUND/) as unknown])

  const got = await client.callTool({
    name: 'memory_get',
    arguments: { path: 'memory/2026-03-01.md', from: 3, lines: 1 },
  })
  const { sha256 } = structured<{ sha256: string }>(got)
  expect(sha256).toMatch(/^[0-9a-f]{64}$/)
  expect(text(got)).toBe(`memory/2026-03-01.md#L3 (of 3 lines, sha256 ${sha256}):\n- Launch is on 3 April.`)
  expect(structured(got)).toEqual({ path: 'memory/2026-03-01.md', from: 3, to: 3, totalLines: 3, sha256 })

  // A search field beyond query reaches the search: pathPrefix leaves the day file out.
  await client.callTool({
    name: 'memory_write',
    arguments: { path: 'MEMORY.md', content: `- ${agent} keeps billing in Postgres.` },
  })
  const all = await client.callTool({
    name: 'memory_search',
    arguments: { query: 'Postgres billing', mode: 'keyword' },
  })
  expect(structured<{ mode: string }>(all).mode).toBe('keyword')
  expect(
    structured<{ results: { path: string }[] }>(all)
      .results.map((r) => r.path)
      .sort(),
  ).toEqual(['MEMORY.md', 'memory/2026-03-01.md'])
  const onlyDays = await client.callTool({
    name: 'memory_search',
    arguments: { query: 'Postgres billing', pathPrefix: 'memory/' },
  })
  expect(structured<{ results: { path: string }[] }>(onlyDays).results.map((r) => r.path)).toEqual([
    'memory/2026-03-01.md',
  ])
  const badPrefix = await client.callTool({
    name: 'memory_search',
    arguments: { query: 'Postgres', pathPrefix: '../x' },
  })
  expect(badPrefix.isError).toBe(true)

  const flushed = await client.callTool({
    name: 'memory_flush',
    arguments: { entries: ['- The user wants weekly summaries.'], sessionId: 's-1', flushId: 's-1:1' },
  })
  expect(text(flushed)).toMatch(/^Saved memory\/\d{4}-\d\d-\d\d\.md#L\d+-L\d+\.$/)
  const again = await client.callTool({
    name: 'memory_flush',
    arguments: { entries: ['- The user wants weekly summaries.'], sessionId: 's-1', flushId: 's-1:1' },
  })
  expect(text(again)).toContain('Already saved earlier')
  // A flushId names one content: other notes under it are a tool error, never a silent replay.
  const reused = await client.callTool({
    name: 'memory_flush',
    arguments: { entries: ['- The user wants daily summaries.'], sessionId: 's-1', flushId: 's-1:1' },
  })
  expect(reused.isError).toBe(true)
  expect(text(reused)).toMatch(/^FLUSH_ID_CONFLICT: flushId "s-1:1" was used for other notes/)
  // The same notes under a new flushId are remembered already: nothing is saved twice.
  const duplicate = await client.callTool({
    name: 'memory_flush',
    arguments: { entries: ['- The user  wants weekly summaries. '], sessionId: 's-2', flushId: 's-2:1' },
  })
  expect(text(duplicate)).toMatch(/^Already remembered as memory\/\d{4}-\d\d-\d\d\.md#L\d+-L\d+; nothing was saved\.$/)

  // A fact replaced: the old entry stays, superseded, and searches find the new one only.
  const memory = await client.callTool({ name: 'memory_get', arguments: { path: 'MEMORY.md' } })
  const superseded = await client.callTool({
    name: 'memory_supersede',
    arguments: {
      path: 'MEMORY.md',
      startLine: 2,
      content: `- ${agent} keeps billing in CockroachDB.`,
      sha256: structured<{ sha256: string }>(memory).sha256,
    },
  })
  expect(superseded.isError).toBeFalsy()
  expect(text(superseded)).toMatch(/^Wrote MEMORY\.md#L4-L5; superseded MEMORY\.md#L1-L2 \(sha256 [0-9a-f]{64}\)\.$/)
  const current = await client.callTool({
    name: 'memory_search',
    arguments: { query: 'billing', pathPrefix: 'MEMORY.md', mode: 'keyword' },
  })
  expect(text(current)).toContain('CockroachDB')
  expect(text(current)).not.toContain('keeps billing in Postgres')
  const staleSupersede = await client.callTool({
    name: 'memory_supersede',
    arguments: { path: 'MEMORY.md', startLine: 2, content: '- x', sha256: '0'.repeat(64) },
  })
  expect(text(staleSupersede)).toMatch(/^PRECONDITION_FAILED: /)
  // The REST schema's rules across fields are the tool's too.
  const unnamed = await client.callTool({ name: 'memory_supersede', arguments: { content: '- x' } })
  expect(unnamed.isError).toBe(true)
  expect(text(unnamed)).toContain('name the old entry')

  // Forgetting a session removes what it flushed.
  const forgot = await client.callTool({ name: 'memory_forget', arguments: { sessionId: 's-1' } })
  expect(text(forgot)).toMatch(/^Forgot session "s-1": removed memory\/\d{4}-\d\d-\d\d\.md#L\d+-L\d+\.$/)
  const forgotten = await client.callTool({ name: 'memory_search', arguments: { query: 'weekly summaries' } })
  expect(text(forgotten)).toContain('nothing relevant is remembered')

  const listed = await client.callTool({ name: 'memory_list', arguments: {} })
  expect(structured<{ files: { path: string }[] }>(listed).files.map((f) => f.path)).toEqual(
    expect.arrayContaining(['MEMORY.md', 'memory/2026-03-01.md']),
  )
  expect(text(listed)).toMatch(/^\d memory files:\n/)
  expect(text(listed)).toMatch(/^memory\/2026-03-01\.md \(3 lines, \d+ bytes, modified /m)

  // Replace and delete check the sha256 the agent read, as PUT and DELETE /files with If-Match.
  const day = 'memory/2026-03-01.md'
  const stale = '0'.repeat(64)
  const refused = await client.callTool({
    name: 'memory_replace',
    arguments: { path: day, content: '- x', sha256: stale },
  })
  expect(refused.isError).toBe(true)
  expect(text(refused)).toMatch(/^PRECONDITION_FAILED: /)
  const replaced = await client.callTool({
    name: 'memory_replace',
    arguments: { path: day, content: `- ${agent} moved billing to Postgres 18.\n`, sha256: sha256.toUpperCase() },
  })
  expect(replaced.isError).toBeFalsy()
  const newSha = structured<{ sha256: string }>(replaced).sha256
  expect(text(replaced)).toBe(`Replaced ${day}#L1 (sha256 ${newSha}).`)
  const moved = await client.callTool({ name: 'memory_search', arguments: { query: 'Postgres 18', pathPrefix: day } })
  expect(text(moved)).toContain(`${agent} moved billing to Postgres 18`)
  const badHash = await client.callTool({
    name: 'memory_replace',
    arguments: { path: day, content: 'x', sha256: 'abc' },
  })
  expect(text(badHash)).toContain('Input validation error')
  const noAgentWrite = await client.callTool({
    name: 'memory_replace',
    arguments: { path: 'notes.txt', content: 'x', sha256: stale },
  })
  expect(noAgentWrite.isError).toBe(true)

  // The files as resources: listed with their URI, read as markdown.
  const resources = await client.listResources()
  const dayResource = resources.resources.find((r) => r.name === day)
  expect(dayResource).toMatchObject({ uri: `mnemo:///${day}`, mimeType: 'text/markdown' })
  expect(resources.resources.map((r) => r.uri)).toContain('mnemo:///MEMORY.md')
  const read = await client.readResource({ uri: `mnemo:///${day}` })
  expect(read.contents).toEqual([
    { uri: `mnemo:///${day}`, mimeType: 'text/markdown', text: `- ${agent} moved billing to Postgres 18.` },
  ])
  await client.callTool({ name: 'memory_write', arguments: { path: 'memory/项目 notes.md', content: '- 中文笔记' } })
  const encoded = (await client.listResources()).resources.find((r) => r.name === 'memory/项目 notes.md')
  expect(encoded?.uri).toBe('mnemo:///memory/%E9%A1%B9%E7%9B%AE%20notes.md')
  const chinese = await client.readResource({ uri: encoded?.uri ?? '' })
  expect(chinese.contents[0]).toMatchObject({ text: expect.stringMatching(/origin: agent -->\n- 中文笔记$/) })
  await expect(client.readResource({ uri: 'mnemo:///memory/nope.md' })).rejects.toThrow(/FILE_NOT_FOUND/)
  await expect(client.readResource({ uri: 'mnemo:///memory/%2E%2E/%2E%2E/etc/passwd' })).rejects.toThrow(/PATH_INVALID/)

  const staleDelete = await client.callTool({ name: 'memory_delete', arguments: { path: day, sha256: stale } })
  expect(text(staleDelete)).toMatch(/^PRECONDITION_FAILED: /)
  const deleted = await client.callTool({ name: 'memory_delete', arguments: { path: day, sha256: newSha } })
  expect(text(deleted)).toBe(`Deleted ${day}.`)
  expect(structured(deleted)).toEqual({ path: day, deleted: true, indexed: true })
  const gone = await client.callTool({ name: 'memory_get', arguments: { path: day } })
  expect(text(gone)).toBe('FILE_NOT_FOUND: No such file')
  const deletedAgain = await client.callTool({ name: 'memory_delete', arguments: { path: day } })
  expect(text(deletedAgain)).toBe('FILE_NOT_FOUND: No such file')

  const missing = await client.callTool({ name: 'memory_get', arguments: { path: 'memory/nope.md' } })
  expect(missing.isError).toBe(true)
  expect(text(missing)).toBe('FILE_NOT_FOUND: No such file')
  const escape = await client.callTool({ name: 'memory_get', arguments: { path: '../../etc/passwd' } })
  expect(escape.isError).toBe(true)
  expect(text(escape)).toMatch(/^PATH_INVALID: /)
  const readOnly = await client.callTool({ name: 'memory_write', arguments: { path: 'notes.txt', content: 'x' } })
  expect(text(readOnly)).toMatch(/^PATH_INVALID: /)
  const invalid = await client.callTool({ name: 'memory_search', arguments: { maxResults: 'many' } })
  expect(invalid.isError).toBe(true)
  expect(text(invalid)).toContain('Input validation error')
}

describe('MCP over Streamable HTTP at /mcp', () => {
  it('serves the memory tools and resources to the SDK client, acting for the token’s agent', async () => {
    const url = await listening()
    await session(await httpClient(url, { authorization: `Bearer ${ALICE}` }), 'alice')
    expect(fs.readFileSync(path.join(t.agentsDir, 'alice/MEMORY.md'), 'utf8')).toContain('alice keeps billing')
    // What alice wrote is hers: main (through the admin token) does not find it.
    const admin = await httpClient(url, { authorization: `Bearer ${ADMIN}` })
    const asMain = await admin.callTool({ name: 'memory_search', arguments: { query: 'Postgres billing' } })
    expect(structured<{ results: unknown[] }>(asMain).results).toEqual([])
    const asAlice = await httpClient(url, { authorization: `Bearer ${ADMIN}`, 'x-mnemo-agent': 'alice' })
    const found = await asAlice.callTool({ name: 'memory_search', arguments: { query: 'Postgres billing' } })
    expect(structured<{ results: unknown[] }>(found).results).toHaveLength(1)
  })

  it('has the REST auth: no token 401, another agent 403, an unknown agent a tool error', async () => {
    const url = await listening()
    await expect(httpClient(url, {})).rejects.toThrow(/401/)
    await expect(httpClient(url, { authorization: `Bearer ${ALICE}`, 'x-mnemo-agent': 'main' })).rejects.toThrow(/403/)
    const ghost = await httpClient(url, { authorization: `Bearer ${ADMIN}`, 'x-mnemo-agent': 'ghost' })
    const res = await ghost.callTool({ name: 'memory_search', arguments: { query: 'x' } })
    expect(res.isError).toBe(true)
    expect(text(res)).toMatch(/^AGENT_NOT_FOUND: /)
  })

  it('says why a token is refused, in the challenge and to the SDK client', async () => {
    const url = await listening()
    const post = (authorization?: string) =>
      fetch(`${url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(authorization === undefined ? {} : { authorization }) },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      })
    const none = await post()
    expect(none.status).toBe(401)
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="mnemo"')
    expect(await none.json()).toMatchObject({
      code: 'UNAUTHORIZED',
      message: expect.stringMatching(/^Missing bearer token/),
    })
    const wrong = await post('Bearer not-a-token')
    expect(wrong.headers.get('www-authenticate')).toBe(
      'Bearer realm="mnemo", error="invalid_token", error_description="Invalid bearer token: it is neither ' +
        'MNEMO_API_TOKEN nor an agent token of MNEMO_AGENT_TOKENS"',
    )
    expect(await wrong.json()).toMatchObject({ code: 'UNAUTHORIZED' })
    await expect(httpClient(url, { authorization: 'Bearer not-a-token' })).rejects.toThrow(
      /401.*Invalid bearer token: it is neither MNEMO_API_TOKEN nor an agent token/,
    )
  })

  it('answers OAuth discovery at once: mnemo takes static bearer tokens', async () => {
    const url = await listening()
    for (const where of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
    ]) {
      const res = await fetch(`${url}${where}`)
      expect(res.status, where).toBe(404)
      expect(await res.json()).toMatchObject({
        code: 'ROUTE_NOT_FOUND',
        message: expect.stringContaining('mnemo does not use OAuth'),
      })
    }
    // A client with an OAuth provider (as the MCP Inspector has) fails with the reason,
    // not by asking for an interactive login.
    const redirects: URL[] = []
    const provider: OAuthClientProvider = {
      redirectUrl: 'http://127.0.0.1:1/callback',
      clientMetadata: { redirect_uris: ['http://127.0.0.1:1/callback'], client_name: 'mnemo-test' },
      clientInformation: () => undefined,
      saveClientInformation: () => undefined,
      tokens: () => undefined,
      saveTokens: () => undefined,
      redirectToAuthorization: (to) => void redirects.push(to),
      saveCodeVerifier: () => undefined,
      codeVerifier: () => '',
    }
    const client = new Client({ name: 'mnemo-test', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      authProvider: provider,
      requestInit: { headers: { authorization: 'Bearer not-a-token' } },
    })
    await expect(client.connect(transport)).rejects.toThrow(/mnemo does not use OAuth: send its static bearer token/)
    expect(redirects).toEqual([])
  })

  it('answers bodies that are not JSON-RPC with JSON-RPC errors', async () => {
    const url = await listening()
    const post = (body: string, contentType = 'application/json') =>
      fetch(`${url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ALICE}`,
          'content-type': contentType,
          accept: 'application/json, text/event-stream',
        },
        body,
      })
    for (const [body, contentType, status, code] of [
      ['{"jsonrpc": ', 'application/json', 400, -32700],
      ['[]', 'application/json', 400, -32600],
      [
        JSON.stringify([1, 2].map(() => ({ jsonrpc: '2.0', id: 7, method: 'tools/list' }))),
        'application/json',
        400,
        -32600,
      ],
      ['{"jsonrpc":"1.0","id":1,"method":"tools/list"}', 'application/json', 400, -32700],
      ['{"jsonrpc":"2.0","id":1,"method":"tools/list"}', 'text/plain', 415, -32000],
    ] as const) {
      const res = await post(body, contentType)
      expect(res.status, body).toBe(status)
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code } })
    }
    const client = await httpClient(url, { authorization: `Bearer ${ALICE}` })
    const coerced = await client.callTool({ name: 'memory_get', arguments: { path: 'MEMORY.md', from: '1' } })
    expect(coerced.isError).toBe(true)
  })

  it('answers GET and DELETE with 405: the endpoint keeps no sessions', async () => {
    const url = await listening()
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${url}/mcp`, { method, headers: { authorization: `Bearer ${ALICE}` } })
      expect(res.status).toBe(405)
      expect(res.headers.get('allow')).toBe('POST')
    }
  })
})

describe('mnemo mcp (stdio)', () => {
  function stdioClient(env: Record<string, string>): Promise<Client> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', path.join(ROOT, 'src/cli.ts'), 'mcp'],
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stderr: 'pipe',
    })
    const client = new Client({ name: 'mnemo-test', version: '1.0.0' })
    clients.push(client)
    return client.connect(transport).then(() => client)
  }

  it('speaks MCP over stdio to a running mnemo, with the same tools and answers', async () => {
    const url = await listening()
    await session(await stdioClient({ MNEMO_URL: url, MNEMO_TOKEN: ALICE }), 'alice')
    expect(fs.readFileSync(path.join(t.agentsDir, 'alice/MEMORY.md'), 'utf8')).toContain('alice keeps billing')
  })

  it('says which service it cannot reach, as a tool error', async () => {
    t = await useAgentsApp()
    const client = await stdioClient({ MNEMO_URL: 'http://127.0.0.1:9', MNEMO_TIMEOUT_MS: '2000' })
    const res = await client.callTool({ name: 'memory_search', arguments: { query: 'x' } })
    expect(res.isError).toBe(true)
    expect(text(res)).toMatch(/^UNAVAILABLE: mnemo at http:\/\/127\.0\.0\.1:9 did not answer/)
  })
})
