/**
 * The search log (SPEC §12) through the API on both engines (POSTGRES_API_SUITE): every
 * search is listed by GET /searches with what it asked and how it was answered, to the
 * admin and to the agent (and user) that made it only; POST /feedback records whether it
 * helped; a log whose writes fail never fails a search; MNEMO_SEARCH_LOG=off keeps none.
 */
import { describe, expect, it } from 'vitest'
import type { SearchLog } from '../../src/store/search-log-port.js'
import { useAgentsApp, type AgentsApp } from '../helpers/agents-app.js'
import type { LoggedSearch } from '../helpers/api-types.js'

const ADMIN = 'admin-token-0123456789abcdef'
const TOKENS = {
  ops: 'ops-token-0123456789abcdef',
  coder: 'coder-token-0123456789abc',
  alice: 'ops-alice-token-0123456789',
}

type Who = keyof typeof TOKENS | 'admin'
type Logged = LoggedSearch

let t: AgentsApp

async function app(env: Record<string, string> = {}, searchLogStore?: (s: SearchLog) => SearchLog) {
  t = await useAgentsApp({
    env: {
      MNEMO_API_TOKEN: ADMIN,
      MNEMO_AGENT_TOKENS: `ops:${TOKENS.ops},coder:${TOKENS.coder},ops/alice:${TOKENS.alice}`,
      ...env,
    },
    ...(searchLogStore && { overrides: { searchLogStore } }),
  })
  for (const [who, text] of [
    ['ops', '- The staging Redis listens on port 6380.\n'],
    ['coder', '- The coder pinned zlib to 1.3.1.\n'],
  ] as const) {
    expect((await as(who, 'PUT', '/files/MEMORY.md', { content: text })).statusCode).toBe(201)
  }
  return t
}

function as(
  who: Who,
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  payload?: unknown,
  headers: Record<string, string> = {},
) {
  return t.call(method, url, {
    token: who === 'admin' ? ADMIN : TOKENS[who],
    headers,
    ...(payload !== undefined && { payload }),
  })
}

async function search(who: Who, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await as(who, 'POST', '/search', body, headers)
  expect(res.statusCode, res.body).toBe(200)
  return { body: res.json<{ requestId?: string; results: unknown[] }>(), header: res.headers['x-request-id'] }
}

async function listed(who: Who, query = '', headers: Record<string, string> = {}): Promise<Logged[]> {
  const res = await as(who, 'GET', `/searches${query}`, undefined, headers)
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ searches: Logged[] }>().searches
}

describe('the search log', () => {
  it('lists a search with what it asked and how it was answered, under its request id', async () => {
    await app()
    const found = await search('ops', { query: 'staging Redis port' })
    expect(found.body.results.length).toBe(1)
    expect(found.body.requestId).toBe(found.header)
    const cut = await search('ops', { query: 'staging Redis port', minScore: 0.99 })
    await search('ops', { query: 'vitamin deficiency' })
    const rows = await listed('ops')
    expect(rows.map((r) => [r.query, r.results, r.abstained])).toEqual([
      ['vitamin deficiency', 0, false],
      ['staging Redis port', 0, true],
      ['staging Redis port', 1, false],
    ])
    const first = rows[2] as Logged
    expect(first).toMatchObject({ requestId: found.header, agent: 'ops', user: null, mode: 'keyword', degraded: [] })
    expect(first.bestScore).toBeGreaterThan(0.35)
    expect(rows[1]?.bestScore).toBe(first.bestScore)
    expect(rows[0]?.bestScore).toBeNull()
    expect(rows[1]?.requestId).toBe(cut.body.requestId)
    expect(Number.isNaN(Date.parse(first.time))).toBe(false)
    expect(first.latencyMs).toBeGreaterThan(0)
    expect((await listed('ops', '?noResults=true')).map((r) => r.query)).toEqual([
      'vitamin deficiency',
      'staging Redis port',
    ])
    expect(await listed('ops', `?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([])
  })

  it('shows each agent and user its own searches only, and the admin all of them', async () => {
    await app()
    await search('ops', { query: 'ops looked for redis' })
    await search('coder', { query: 'coder looked for zlib' })
    await search('alice', { query: 'alice looked for her keys' })
    expect((await listed('ops')).map((r) => r.query)).toEqual(['ops looked for redis'])
    expect((await listed('alice')).map((r) => [r.query, r.user])).toEqual([['alice looked for her keys', 'alice']])
    // The agent's token for another user sees none of alice's queries.
    expect(await listed('ops', '', { 'x-mnemo-user': 'bob' })).toEqual([])
    for (const [who, query, code] of [
      ['ops', '?agent=coder', 'AGENT_FORBIDDEN'],
      ['ops', '?user=alice', 'USER_FORBIDDEN'],
      ['alice', '?user=bob', 'USER_FORBIDDEN'],
      ['coder', '?agent=ops', 'AGENT_FORBIDDEN'],
    ] as const) {
      const res = await as(who, 'GET', `/searches${query}`)
      expect([res.statusCode, res.json().code], `${who} ${query}`).toEqual([403, code])
    }
    expect((await listed('admin')).map((r) => r.query).sort()).toEqual([
      'alice looked for her keys',
      'coder looked for zlib',
      'ops looked for redis',
    ])
    expect((await listed('admin', '?agent=ops&user=alice')).map((r) => r.query)).toEqual(['alice looked for her keys'])
  })

  it('records feedback from the agent that searched, and refuses any other', async () => {
    await app()
    const { body } = await search('ops', { query: 'staging Redis port' })
    const requestId = body.requestId as string
    for (const [who, headers] of [
      ['coder', {}],
      ['alice', {}],
      ['ops', { 'x-mnemo-user': 'bob' }],
    ] as const) {
      const res = await as(who, 'POST', '/feedback', { requestId, useful: true }, headers)
      expect([res.statusCode, res.json().code], who).toEqual([404, 'SEARCH_NOT_FOUND'])
    }
    const unknown = await as('ops', 'POST', '/feedback', { requestId: 'no-such-request', useful: true })
    expect(unknown.json().code).toBe('SEARCH_NOT_FOUND')
    expect((await listed('ops'))[0]?.feedback).toBeNull()
    const given = await as('ops', 'POST', '/feedback', { requestId, useful: false, note: 'the port was wrong' })
    expect(given.json()).toEqual({ requestId, useful: false })
    expect((await listed('ops'))[0]?.feedback).toMatchObject({ useful: false, note: 'the port was wrong' })
    const metrics = await as('admin', 'GET', '/metrics')
    expect(metrics.body).toMatch(/mnemo_search_feedback_total\{useful="false"\} 1/)
    expect(metrics.body).toMatch(/mnemo_search_log_entries_total\{outcome="written"\} 1/)
  })

  it('answers every search while the log cannot be written, and counts what it lost', async () => {
    await app({}, (store) => ({
      ...store,
      append: () => Promise.reject(new Error('disk full')),
    }))
    for (let i = 0; i < 3; i++)
      expect((await search('ops', { query: 'staging Redis port' })).body.results.length).toBe(1)
    expect(await listed('ops')).toEqual([])
    const metrics = await as('admin', 'GET', '/metrics')
    expect(metrics.body).toMatch(/mnemo_search_log_entries_total\{outcome="failed"\} 3/)
  })

  it('keeps nothing with MNEMO_SEARCH_LOG=off', async () => {
    await app({ MNEMO_SEARCH_LOG: 'off' })
    const { body } = await search('ops', { query: 'staging Redis port' })
    expect(body.requestId).toBeUndefined()
    const res = await as('ops', 'GET', '/searches')
    expect([res.statusCode, res.json().code]).toEqual([404, 'SEARCH_LOG_OFF'])
  })
})
