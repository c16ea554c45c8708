import { afterEach, describe, expect, it } from 'vitest'
import { defaultHttpDeps, type HttpDeps } from '../../src/providers/http-json.js'
import { createOpenAiEmbeddings } from '../../src/providers/openai-embeddings.js'
import { isProviderError } from '../../src/providers/provider-error.js'
import { embeddingsReply, startScriptedServer, type ScriptedAnswer } from '../helpers/scripted-server.js'

const KEY = 'sk-test-secret-key-123'
const servers: Awaited<ReturnType<typeof startScriptedServer>>[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close()
})

/** Real fetch against the real server; sleeps are recorded instead of waited. */
function recordingHttp(): HttpDeps & { sleeps: number[] } {
  const sleeps: number[] = []
  return { ...defaultHttpDeps, random: () => 0.5, sleep: async (ms) => void sleeps.push(ms), sleeps }
}

async function provider(
  script: ScriptedAnswer[],
  opts: { dims?: number; timeoutMs?: number; maxRetries?: number; sendDimensions?: boolean } = {},
) {
  const server = await startScriptedServer(script)
  servers.push(server)
  const http = recordingHttp()
  const p = createOpenAiEmbeddings({
    baseUrl: `${server.url}/v1/`,
    apiKey: KEY,
    model: 'text-embedding-v4',
    dims: opts.dims ?? 4,
    sendDimensions: opts.sendDimensions ?? false,
    maxBatch: 16,
    timeoutMs: opts.timeoutMs ?? 2000,
    maxRetries: opts.maxRetries ?? 3,
    http,
  })
  return { p, server, http }
}

async function failure(promise: Promise<unknown>) {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  )
  expect(isProviderError(err)).toBe(true)
  return err as Error & { code: string }
}

describe('openai-compatible embeddings over HTTP', () => {
  it('posts the OpenAI request shape and returns unit vectors and token usage', async () => {
    const { p, server } = await provider([{ reply: embeddingsReply(4) }], { sendDimensions: true })
    const out = await p.embedBatch(['alpha', 'beta gamma'])
    expect(out.tokens).toBe(6)
    expect(out.vectors).toHaveLength(2)
    for (const v of out.vectors) expect(Math.hypot(...v)).toBeCloseTo(1, 6)
    const [req] = server.requests
    expect(req?.url).toBe('/v1/embeddings')
    expect(req?.headers.authorization).toBe(`Bearer ${KEY}`)
    expect(req?.body).toEqual({
      model: 'text-embedding-v4',
      input: ['alpha', 'beta gamma'],
      encoding_format: 'float',
      dimensions: 4,
    })
  })

  it('orders vectors by their index, whatever order the server sends them in', async () => {
    const reply = (request: unknown) => {
      const out = embeddingsReply(4)(request)
      return { ...out, data: [...out.data].reverse() }
    }
    const { p } = await provider([{ reply }])
    const shuffled = await p.embedBatch(['a', 'bbbb'])
    const { p: p2 } = await provider([{ reply: embeddingsReply(4) }])
    const ordered = await p2.embedBatch(['a', 'bbbb'])
    expect(shuffled.vectors).toEqual(ordered.vectors)
  })

  it('waits as long as Retry-After says on 429, then succeeds', async () => {
    const { p, server, http } = await provider([
      { status: 429, headers: { 'retry-after': '2' }, body: { error: 'slow down' } },
      { reply: embeddingsReply(4) },
    ])
    const out = await p.embedBatch(['x'])
    expect(out.vectors).toHaveLength(1)
    expect(server.requests).toHaveLength(2)
    expect(http.sleeps).toEqual([2000])
  })

  it('retries 5xx with exponential backoff and jitter', async () => {
    const { p, server, http } = await provider([{ status: 503 }, { status: 500 }, { reply: embeddingsReply(4) }])
    await p.embedBatch(['x'])
    expect(server.requests).toHaveLength(3)
    expect(http.sleeps).toEqual([250, 500])
  })

  it('stops after maxRetries so an outage never multiplies cost', async () => {
    const { p, server } = await provider([{ status: 500, body: { error: 'boom' } }], { maxRetries: 3 })
    const err = await failure(p.embedBatch(['x']))
    expect(err.code).toBe('PROVIDER_FAILED')
    expect(err.message).toContain('HTTP 500')
    expect(server.requests).toHaveLength(4)
  })

  it('gives up at once on a Retry-After longer than a minute', async () => {
    const { p, server } = await provider([{ status: 429, headers: { 'retry-after': '3600' } }])
    await failure(p.embedBatch(['x']))
    expect(server.requests).toHaveLength(1)
  })

  it.each([
    [400, 'bad request'],
    [401, 'bad key'],
    [404, 'no such model'],
  ])('does not retry HTTP %i', async (status, message) => {
    const { p, server } = await provider([{ status, body: { error: { message } } }])
    const err = await failure(p.embedBatch(['x']))
    expect(err.message).toContain(`HTTP ${status}`)
    expect(server.requests).toHaveLength(1)
  })

  it('times out a slow answer with PROVIDER_TIMEOUT, retrying within the retry cap', async () => {
    const { p, server } = await provider([{ delayMs: 1000, reply: embeddingsReply(4) }], {
      timeoutMs: 100,
      maxRetries: 1,
    })
    const err = await failure(p.embedBatch(['x']))
    expect(err.code).toBe('PROVIDER_TIMEOUT')
    expect(server.requests).toHaveLength(2)
  })

  it.each([
    ['malformed JSON', { body: '{"data": [' }, /malformed JSON/],
    ['not an embeddings list', { body: { result: 'ok' } }, /not an embeddings list/],
    ['wrong dimensions', { reply: embeddingsReply(3) }, /expected 4 dimensions, got 3/],
    ['missing vectors', { body: { data: [{ index: 0, embedding: [1, 2, 3, 4] }] } }, /expected 2 embeddings, got 1/],
    ['a zero vector', { body: { data: [0, 1].map((index) => ({ index, embedding: [0, 0, 0, 0] })) } }, /zero vector/],
  ])('refuses %s without retrying', async (_name, answer, message) => {
    const { p, server } = await provider([answer])
    const err = await failure(p.embedBatch(['a', 'b']))
    expect(err.code).toBe('PROVIDER_FAILED')
    expect(err.message).toMatch(message)
    expect(server.requests).toHaveLength(1)
  })

  it('never puts the API key in an error', async () => {
    const { p } = await provider([{ status: 401, body: 'unauthorized' }])
    const err = await failure(p.embedBatch(['x']))
    expect(`${err.message} ${JSON.stringify(err)}`).not.toContain(KEY)
  })

  it('embeds one query through the same endpoint', async () => {
    const { p, server } = await provider([{ reply: embeddingsReply(4) }])
    const out = await p.embedQuery('what was decided')
    expect(out.vector).toHaveLength(4)
    expect(server.requests[0]?.body).toMatchObject({ input: ['what was decided'] })
  })
})
