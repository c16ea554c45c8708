import { describe, expect, it } from 'vitest'
import { failure } from '../../test/helpers/mnemo-error.js'
import { retryAfterMs, send, urlOf, type Call, type Transport } from './http.js'

type Seen = { url: string; init: RequestInit }

/** A transport whose fetch answers from a script, one step per call, and records each call. */
function scripted(steps: (() => Promise<Response>)[], overrides: Partial<Transport> = {}) {
  const seen: Seen[] = []
  const t: Transport = {
    baseUrl: 'http://mnemo.test:8787',
    token: 'tok',
    agent: 'ops',
    user: undefined,
    timeoutMs: 1000,
    retries: 2,
    maxRetryWaitMs: 1000,
    fetch: async (url, init) => {
      seen.push({ url: url instanceof Request ? url.url : url.toString(), init: init ?? {} })
      const step = steps.shift()
      if (!step) throw new Error('no more steps')
      return step()
    },
    ...overrides,
  }
  return { t, seen }
}

const answer =
  (status: number, body: unknown = {}, headers: Record<string, string> = {}) =>
  () =>
    Promise.resolve(
      new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } }),
    )
const refused = () => Promise.reject(new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') }))
const header = (s: Seen, name: string) => (s.init.headers as Record<string, string>)[name]
const search: Call = { method: 'POST', path: 'search', json: { query: 'x' }, idempotent: true }
const append: Call = { method: 'POST', path: 'files/a.md', json: { content: 'x' }, idempotent: false }

describe('send', () => {
  it('sends the token, the agent and one request id, kept across a retry after Retry-After', async () => {
    const { t, seen } = scripted([answer(503, { code: 'OVERLOADED' }, { 'retry-after': '0' }), answer(200, { ok: 1 })])
    const res = await send(t, search)
    expect(await res.json()).toEqual({ ok: 1 })
    expect(seen).toHaveLength(2)
    expect(header(seen[0] as Seen, 'authorization')).toBe('Bearer tok')
    expect(header(seen[0] as Seen, 'x-mnemo-agent')).toBe('ops')
    expect(header(seen[0] as Seen, 'x-mnemo-user')).toBeUndefined()
    expect(header(seen[1] as Seen, 'x-request-id')).toBe(header(seen[0] as Seen, 'x-request-id'))
    expect(header(seen[0] as Seen, 'x-request-id')).toMatch(/^[0-9a-f]{32}$/)
  })

  it('retries a 429 of a write too (admission refuses before any work), but not past its retries', async () => {
    const busy = answer(429, { code: 'AGENT_BUSY', message: 'busy' }, { 'retry-after': '0' })
    const { t, seen } = scripted([busy, busy, busy])
    const err = await failure(send(t, append))
    expect([err.code, err.status, err.message]).toEqual(['AGENT_BUSY', 429, 'busy'])
    expect(seen).toHaveLength(3)
  })

  it('fails at once on a Retry-After longer than it waits', async () => {
    const { t, seen } = scripted([answer(503, { code: 'OVERLOADED' }, { 'retry-after': '120' })])
    expect((await failure(send(t, search))).code).toBe('OVERLOADED')
    expect(seen).toHaveLength(1)
  })

  it('repeats a read after no answer, but never a write that may have landed', async () => {
    const read = scripted([refused, answer(200, {})])
    expect((await send(read.t, search)).status).toBe(200)
    const write = scripted([refused, answer(200, {})])
    const err = await failure(send(write.t, append))
    expect([err.code, err.status]).toEqual(['UNREACHABLE', null])
    expect(err.message).toContain('ECONNREFUSED')
    expect(write.seen).toHaveLength(1)
  })

  it('gives up with TIMEOUT when no answer comes in time', async () => {
    const hang = (_url: unknown, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) =>
        init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
      )
    const { t } = scripted([], { fetch: hang, timeoutMs: 30, retries: 0 })
    const started = Date.now()
    expect((await failure(send(t, search))).code).toBe('TIMEOUT')
    expect(Date.now() - started).toBeLessThan(2000)
  })

  it('keeps a body that is not mnemo’s error shape as the message', async () => {
    const { t } = scripted([() => Promise.resolve(new Response('Bad Gateway from the proxy', { status: 502 }))])
    const err = await failure(send(t, search))
    expect([err.code, err.status, err.message]).toEqual(['HTTP_502', 502, 'Bad Gateway from the proxy'])
  })

  it('takes statuses the call accepts as answers (GET /ready’s 503)', async () => {
    const { t } = scripted([answer(503, { ready: false })])
    const res = await send(t, { method: 'GET', path: 'ready', idempotent: true, accept: [503] })
    expect(await res.json()).toEqual({ ready: false })
  })
})

describe('retryAfterMs', () => {
  it.each([
    ['3', 3000],
    ['0', 0],
    ['Thu, 01 Jan 2026 00:00:10 GMT', 10_000],
    ['soon', null],
    [null, null],
  ])('%j → %j', (value, ms) => {
    expect(retryAfterMs(value, Date.parse('2026-01-01T00:00:00Z'))).toBe(ms)
  })
})

describe('urlOf', () => {
  it('joins the base URL (with or without a path) and leaves out undefined query values', () => {
    const { t } = scripted([], { baseUrl: 'http://h:1/mnemo' })
    expect(
      urlOf(t, {
        method: 'GET',
        path: 'files/memory/a%20b.md',
        query: { from: 2, lines: undefined },
        idempotent: true,
      }),
    ).toBe('http://h:1/mnemo/files/memory/a%20b.md?from=2')
  })
})
