/**
 * Query expansion through POST /search (expand: true), with a real OpenAI-compatible chat
 * server on loopback answering /v1/chat/completions, and with the heuristic when no model is
 * configured.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { useTestApp, type SearchBody } from '../helpers/build-test-app.js'
import { createFakeEmbedder, type FakeEmbedder } from '../helpers/fake-embedder.js'
import { startScriptedServer, type ScriptedAnswer } from '../helpers/scripted-server.js'
import { createTempWorkspace } from '../helpers/temp-workspace.js'

const servers: Awaited<ReturnType<typeof startScriptedServer>>[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close()
})

/** Two notes: the query's own words find the second; only a variant's words find the first. */
function notes() {
  const ws = createTempWorkspace()
  ws.write('memory/2026-01-10.md', '# Accounts\n\nThe admin username rotates every quarter.\n')
  ws.write('memory/2026-01-11.md', '# Logins\n\nLogin attempts are logged for a week.\n')
  return ws
}

const QUERY = 'who can login as superuser'
const ACCOUNTS = 'memory/2026-01-10.md'
const LOGINS = 'memory/2026-01-11.md'

/** An OpenAI chat completion whose message holds `content`. */
const chat = (content: string): ScriptedAnswer => ({
  body: { id: 'c1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content } }] },
})

const VARIANTS = JSON.stringify({
  lex: ['admin username'],
  vec: ['which account has admin rights'],
  hyde: 'The admin username is root.',
})

async function start(
  script: ScriptedAnswer[] | null,
  opts: { env?: Record<string, string>; embedder?: FakeEmbedder; logs?: string[] } = {},
) {
  const server = script && (await startScriptedServer(script))
  if (server) servers.push(server)
  const t = await useTestApp({
    ws: notes(),
    env: {
      ...(server && {
        MNEMO_EXPAND_BASE_URL: `${server.url}/v1`,
        MNEMO_EXPAND_MODEL: 'qwen-turbo',
        MNEMO_EXPAND_API_KEY: 'sk-test-expand-key',
        MNEMO_EXPAND_TIMEOUT_MS: '300',
      }),
      ...opts.env,
    },
    ...(opts.embedder && { overrides: { embedder: opts.embedder.provider } }),
    ...(opts.logs && { logs: opts.logs }),
  })
  return { t, server }
}

const paths = (body: SearchBody) => body.results.map((r) => r.path)

describe('expand with a chat model', () => {
  it("finds a note only a variant matches, asks the model in OpenAI's format, and keeps the plain hits", async () => {
    const { t, server } = await start([chat(VARIANTS)])
    const plain = await t.search({ query: QUERY, minScore: 0 })
    expect(paths(plain.body)).toEqual([LOGINS])
    expect(server?.requests).toHaveLength(0)

    const expanded = await t.search({ query: QUERY, minScore: 0, expand: true })
    expect(expanded.statusCode).toBe(200)
    expect(paths(expanded.body).sort()).toEqual([ACCOUNTS, LOGINS])
    expect(expanded.body.degraded).toBeUndefined()
    // The plain hit keeps its score: expansion only adds.
    const logins = expanded.body.results.find((r) => r.path === LOGINS)
    expect(logins?.score).toBe(plain.body.results[0]?.score)
    // A variant's hit counts at 0.8 of its score there (a full match scores below 0.8).
    const accounts = expanded.body.results.find((r) => r.path === ACCOUNTS)
    expect(accounts?.textScore).toBeGreaterThan(0.3)
    expect(accounts?.textScore).toBeLessThan(0.8)

    expect(server?.requests).toHaveLength(1)
    const request = server?.requests[0]
    expect(request?.url).toBe('/v1/chat/completions')
    expect(request?.headers.authorization).toBe('Bearer sk-test-expand-key')
    const body = request?.body as { model: string; messages: { role: string; content: string }[] }
    expect(body.model).toBe('qwen-turbo')
    expect(body.messages.at(-1)).toEqual({ role: 'user', content: QUERY })
  })

  it('asks the model once for a query searched twice (cache), again for another query', async () => {
    const { t, server } = await start([chat(VARIANTS)])
    const first = await t.search({ query: QUERY, minScore: 0, expand: true })
    const second = await t.search({ query: QUERY, minScore: 0, expand: true })
    expect(second.body.results).toEqual(first.body.results)
    expect(server?.requests).toHaveLength(1)
    await t.search({ query: 'login attempts', minScore: 0, expand: true })
    expect(server?.requests).toHaveLength(2)
  })

  it('asks once for the same query searched at the same time', async () => {
    const { t, server } = await start([{ ...chat(VARIANTS), delayMs: 100 }])
    const [a, b] = await Promise.all([
      t.search({ query: QUERY, minScore: 0, expand: true }),
      t.search({ query: QUERY, minScore: 0, expand: true }),
    ])
    expect(paths(a.body)).toContain(ACCOUNTS)
    expect(b.body.results).toEqual(a.body.results)
    expect(server?.requests).toHaveLength(1)
  })

  it('reads variants written as lex:/vec:/hyde: lines', async () => {
    const { t } = await start([chat('Here you go:\nlex: admin username\nhyde: The admin is root.')])
    const expanded = await t.search({ query: QUERY, minScore: 0, expand: true })
    expect(paths(expanded.body)).toContain(ACCOUNTS)
  })

  it.each<[string, ScriptedAnswer, RegExp, string]>([
    ['a slow model', { ...chat(VARIANTS), delayMs: 1500 }, /no answer within 300 ms/, 'PROVIDER_TIMEOUT'],
    ['a 500', { status: 500, body: { error: { message: 'overloaded' } } }, /HTTP 500/, 'PROVIDER_FAILED'],
    ['malformed JSON', { body: '{"choices": [' }, /malformed JSON/, 'PROVIDER_FAILED'],
    ['an answer with no variants', chat('I would rather not.'), /no lex\/vec\/hyde variants/, 'PROVIDER_FAILED'],
    ['a body that is not a chat completion', { body: { error: 'nope' } }, /not a chat completion/, 'PROVIDER_FAILED'],
  ])('searches the plain query with degraded.expand and a warning on %s', async (_name, answer, reason, code) => {
    const logs: string[] = []
    const { t } = await start([answer], { logs })
    const plain = await t.search({ query: QUERY, minScore: 0 })
    const expanded = await t.search({ query: QUERY, minScore: 0, expand: true })
    expect(expanded.statusCode).toBe(200)
    expect(expanded.body.degraded?.expand).toMatch(reason)
    expect(expanded.body.degradedCodes).toEqual({ expand: code })
    expect(expanded.body.results).toEqual(plain.body.results)
    expect(expanded.body.results.length).toBeGreaterThan(0)
    expect(logs.some((l) => l.includes('"level":40') && l.includes('query expansion failed'))).toBe(true)
    expect(logs.join('\n')).not.toContain('sk-test-expand-key')
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' })
    expect(metrics.body).toContain('mnemo_search_degraded_total{stage="expand"} 1')
  })

  it('does not remember a failure: the next search asks again', async () => {
    const { t, server } = await start([{ status: 500 }, chat(VARIANTS)])
    const failed = await t.search({ query: QUERY, minScore: 0, expand: true })
    expect(failed.body.degraded?.expand).toBeDefined()
    const retried = await t.search({ query: QUERY, minScore: 0, expand: true })
    expect(retried.body.degraded).toBeUndefined()
    expect(paths(retried.body)).toContain(ACCOUNTS)
    expect(server?.requests).toHaveLength(2)
  })

  it('without an embedder runs vec variants by keyword and leaves hyde out', async () => {
    const vecOnly = await start([chat(JSON.stringify({ vec: ['admin username'] }))])
    expect(paths((await vecOnly.t.search({ query: QUERY, minScore: 0, expand: true })).body)).toContain(ACCOUNTS)
    const hydeOnly = await start([chat(JSON.stringify({ hyde: 'The admin username is root.' }))])
    expect(paths((await hydeOnly.t.search({ query: QUERY, minScore: 0, expand: true })).body)).toEqual([LOGINS])
  })

  it('with an embedder embeds vec and hyde variants for vector search, and lex ones not', async () => {
    const embedder = createFakeEmbedder()
    const { t } = await start([chat(VARIANTS)], { embedder })
    const res = await t.search({ query: QUERY, minScore: 0, expand: true })
    expect(res.statusCode).toBe(200)
    expect(res.body.mode).toBe('hybrid')
    expect(embedder.texts).toEqual(
      expect.arrayContaining([QUERY, 'which account has admin rights', 'The admin username is root.']),
    )
    expect(embedder.texts).not.toContain('admin username')
  })

  it("leaves out a variant the embedder fails on, saying so, and keeps the plain query's vector results", async () => {
    const embedder = createFakeEmbedder()
    const { t } = await start([chat(JSON.stringify({ vec: ['which account has admin rights'] }))], { embedder })
    const plain = await t.search({ query: QUERY, minScore: 0 })
    embedder.fail() // the query's vector is cached; the variant's is not
    const res = await t.search({ query: QUERY, minScore: 0, expand: true })
    expect(res.body.mode).toBe('hybrid')
    expect(res.body.degraded?.vector).toBeUndefined()
    expect(res.body.degraded?.expand).toMatch(/a vec variant was not embedded/)
    expect(res.body.degradedCodes).toEqual({ expand: 'PROVIDER_FAILED' })
    expect(res.body.results).toEqual(plain.body.results)
  })
})

describe('expand without a model (heuristic)', () => {
  it('finds a note writing as one word what the query writes as two', async () => {
    const { t } = await start(null)
    const plain = await t.search({ query: 'user name policy', minScore: 0 })
    expect(paths(plain.body)).not.toContain(ACCOUNTS)
    const expanded = await t.search({ query: 'user name policy', minScore: 0, expand: true })
    expect(paths(expanded.body)).toContain(ACCOUNTS)
    expect(expanded.body.degraded).toBeUndefined()
  })

  it('follows MNEMO_SEARCH_EXPAND when the request does not say, and expand: false turns it off', async () => {
    const { t } = await start(null, { env: { MNEMO_SEARCH_EXPAND: 'true' } })
    expect(paths((await t.search({ query: 'user name policy', minScore: 0 })).body)).toContain(ACCOUNTS)
    const off = await t.search({ query: 'user name policy', minScore: 0, expand: false })
    expect(paths(off.body)).not.toContain(ACCOUNTS)
  })

  it('rejects an expand that is not a boolean', async () => {
    const { t } = await start(null)
    const res = await t.search({ query: 'admin', expand: 'yes' })
    expect(res.statusCode).toBe(400)
    expect(res.body.code).toBe('VALIDATION_FAILED')
  })
})
