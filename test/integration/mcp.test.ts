import fs from 'node:fs'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { buildAgentsApp, type AgentsApp } from '../helpers/agents-app.js'

const ADMIN = 'admin-token-0123456789abcdef'
const ALICE = 'alice-token-0123456789abcdef'
const ROOT = path.resolve(import.meta.dirname, '../..')

let t: AgentsApp
const clients: Client[] = []
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close()
  await t.close()
})

/** The service on a real port, with an admin and an agent token. */
async function listening(): Promise<string> {
  t = await buildAgentsApp({ env: { MNEMO_API_TOKEN: ADMIN, MNEMO_AGENT_TOKENS: `alice:${ALICE}` } })
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

/** Calls every tool once, as an agent would in a session, and checks the answers. */
async function session(client: Client, agent: string): Promise<void> {
  const tools = await client.listTools()
  expect(tools.tools.map((tool) => tool.name).sort()).toEqual([
    'memory_flush',
    'memory_get',
    'memory_search',
    'memory_write',
  ])
  const search = tools.tools.find((tool) => tool.name === 'memory_search')
  expect(search?.description).toContain('path#Lstart-Lend')
  expect(search?.inputSchema).toMatchObject({ required: ['query'], properties: { query: { type: 'string' } } })

  const written = await client.callTool({
    name: 'memory_write',
    arguments: {
      path: 'memory/2026-03-01.md',
      content: `- ${agent} chose Postgres 17 for billing.\n- Launch is on 3 April.`,
    },
  })
  expect(written.isError).toBeFalsy()
  expect(text(written)).toBe('Appended memory/2026-03-01.md#L1-L2 (searchable now).')
  expect(structured(written)).toMatchObject({ path: 'memory/2026-03-01.md', startLine: 1, endLine: 2, indexed: true })

  const found = await client.callTool({ name: 'memory_search', arguments: { query: 'Postgres billing' } })
  expect(text(found)).toContain('memory/2026-03-01.md#L1-L2')
  expect(text(found)).toContain(`${agent} chose Postgres 17`)
  expect(structured<{ results: { path: string }[] }>(found).results.map((r) => r.path)).toEqual([
    'memory/2026-03-01.md',
  ])
  const nothing = await client.callTool({ name: 'memory_search', arguments: { query: 'kubernetes helm chart' } })
  expect(text(nothing)).toContain('nothing relevant is remembered')

  const got = await client.callTool({
    name: 'memory_get',
    arguments: { path: 'memory/2026-03-01.md', from: 2, lines: 1 },
  })
  expect(text(got)).toBe('memory/2026-03-01.md#L2 (of 2 lines):\n- Launch is on 3 April.')

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
  it('serves the four memory tools to the SDK client, acting for the token’s agent', async () => {
    const url = await listening()
    await session(await httpClient(url, { authorization: `Bearer ${ALICE}` }), 'alice')
    expect(fs.readFileSync(path.join(t.agentsDir, 'alice/memory/2026-03-01.md'), 'utf8')).toContain('alice chose')
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
    expect(fs.readFileSync(path.join(t.agentsDir, 'alice/memory/2026-03-01.md'), 'utf8')).toContain('alice chose')
  })

  it('says which service it cannot reach, as a tool error', async () => {
    t = await buildAgentsApp()
    const client = await stdioClient({ MNEMO_URL: 'http://127.0.0.1:9', MNEMO_TIMEOUT_MS: '2000' })
    const res = await client.callTool({ name: 'memory_search', arguments: { query: 'x' } })
    expect(res.isError).toBe(true)
    expect(text(res)).toMatch(/^UNAVAILABLE: mnemo at http:\/\/127\.0\.0\.1:9 did not answer/)
  })
})
