/**
 * Per-agent concurrency through the API (issue 16): an agent at MNEMO_AGENT_MAX_CONCURRENT
 * waits, then gets 429 AGENT_BUSY, while other agents and the probes are not held up; slots
 * are never leaked, also when a client leaves mid-request or while waiting.
 */
import { describe, expect, it } from 'vitest'
import { useAgentsApp, type AgentsApp } from '../helpers/agents-app.js'
import { createGatedEmbedder } from '../helpers/gated-embedder.js'
import { rawSocket } from '../helpers/raw-socket.js'
import { waitFor } from '../helpers/wait-for.js'

let t: AgentsApp

async function start(env: Record<string, string>) {
  const embedder = createGatedEmbedder()
  t = await useAgentsApp({
    // Held query embeddings must not time out into a degraded answer.
    env: { MNEMO_EMBED_QUERY_TIMEOUT_MS: '60000', ...env },
    overrides: { embedder: embedder.provider },
  })
  for (const agent of ['alice', 'bob']) t.writeAgentFile(agent, 'MEMORY.md', `- ${agent} drinks green tea.\n`)
  // Main's first sync: /ready answers 200 from then on.
  await t.sync()
  return embedder
}

const search = (agent: string, query: string, mode: 'hybrid' | 'keyword' = 'hybrid') =>
  t.app.inject({
    method: 'POST',
    url: '/search',
    headers: { 'x-mnemo-agent': agent },
    payload: { query, mode },
  })

/** A gauge or counter of GET /metrics (0 when absent). */
async function metric(line: string): Promise<number> {
  const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body
  const found = text.split('\n').find((l) => l.startsWith(`${line} `))
  return found ? Number(found.split(' ')[1]) : 0
}

describe('per-agent concurrency', () => {
  it('answers 429 AGENT_BUSY with Retry-After past the limit and the wait, while other agents and /health go on', async () => {
    const embedder = await start({ MNEMO_AGENT_MAX_CONCURRENT: '2', MNEMO_AGENT_QUEUE_MS: '50' })
    // Open alice and bob (their first sync) before holding searches.
    for (const agent of ['alice', 'bob']) expect((await search(agent, 'tea', 'keyword')).statusCode).toBe(200)
    embedder.hold()
    const held = [search('alice', 'green tea'), search('alice', 'tea please')]
    await waitFor(() => (embedder.started() === 2 ? true : undefined))

    const busy = await search('alice', 'tea', 'keyword')
    expect(busy.statusCode).toBe(429)
    expect(busy.headers['retry-after']).toBe('1')
    expect(busy.json()).toMatchObject({ statusCode: 429, code: 'AGENT_BUSY', error: 'Too Many Requests' })
    expect(busy.json<{ message: string }>().message).toContain('MNEMO_AGENT_MAX_CONCURRENT')
    expect(busy.json<{ requestId: string }>().requestId).toBe(busy.headers['x-request-id'])
    // Every agent-acting route counts, not only searches.
    expect(
      (await t.app.inject({ method: 'GET', url: '/index', headers: { 'x-mnemo-agent': 'alice' } })).statusCode,
    ).toBe(429)

    expect((await search('bob', 'tea', 'keyword')).statusCode).toBe(200)
    expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200)
    expect((await t.app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200)
    expect(await metric('mnemo_agent_requests_in_progress')).toBe(2)
    expect(await metric('mnemo_requests_rejected_total{reason="agent_busy"}')).toBe(2)

    embedder.open()
    for (const res of await Promise.all(held)) expect(res.statusCode).toBe(200)
    expect((await search('alice', 'tea', 'keyword')).statusCode).toBe(200)
    expect(await metric('mnemo_agent_requests_in_progress')).toBe(0)
  })

  it('lets a request past the limit wait its turn and answers it when a slot frees', async () => {
    const embedder = await start({ MNEMO_AGENT_MAX_CONCURRENT: '1', MNEMO_AGENT_QUEUE_MS: '30000' })
    expect((await search('alice', 'tea', 'keyword')).statusCode).toBe(200)
    embedder.hold()
    const first = search('alice', 'green tea')
    await waitFor(() => (embedder.started() === 1 ? true : undefined))
    const second = search('alice', 'tea', 'keyword')
    await waitFor(async () => ((await metric('mnemo_agent_requests_waiting')) === 1 ? true : undefined))
    embedder.open()
    expect((await first).statusCode).toBe(200)
    expect((await second).statusCode).toBe(200)
    expect(await metric('mnemo_agent_requests_waiting')).toBe(0)
  })
})

describe('slots are never leaked', () => {
  async function listening(env: Record<string, string>) {
    const embedder = await start(env)
    await t.app.listen({ host: '127.0.0.1', port: 0 })
    const { port } = t.app.server.address() as { port: number }
    expect((await search('alice', 'tea', 'keyword')).statusCode).toBe(200)
    return { embedder, port }
  }

  function rawSearch(port: number, query: string) {
    const socket = rawSocket(port)
    const body = JSON.stringify({ query })
    socket.send(
      'POST',
      '/search',
      { 'x-mnemo-agent': 'alice', 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      body,
    )
    return socket
  }

  it('holds the slot of a client that left while its search still runs, and frees it when the search ends', async () => {
    const { embedder, port } = await listening({ MNEMO_AGENT_MAX_CONCURRENT: '1', MNEMO_AGENT_QUEUE_MS: '0' })
    embedder.hold()
    const socket = rawSearch(port, 'green tea')
    await waitFor(() => (embedder.started() === 1 ? true : undefined))
    socket.destroy()
    await socket.closed
    // Leaving does not let the agent start more work than its slots.
    expect((await search('alice', 'tea', 'keyword')).statusCode).toBe(429)
    embedder.open()
    await waitFor(async () => ((await search('alice', 'tea', 'keyword')).statusCode === 200 ? true : undefined))
    expect(await metric('mnemo_agent_requests_in_progress')).toBe(0)
  })

  it('takes a request out of the queue when its client leaves while waiting', async () => {
    const { embedder, port } = await listening({ MNEMO_AGENT_MAX_CONCURRENT: '1', MNEMO_AGENT_QUEUE_MS: '30000' })
    embedder.hold()
    const first = search('alice', 'green tea')
    await waitFor(() => (embedder.started() === 1 ? true : undefined))
    const waiting = rawSearch(port, 'tea please')
    await waitFor(async () => ((await metric('mnemo_agent_requests_waiting')) === 1 ? true : undefined))
    waiting.destroy()
    await waitFor(async () => ((await metric('mnemo_agent_requests_waiting')) === 0 ? true : undefined))
    embedder.open()
    expect((await first).statusCode).toBe(200)
    expect((await search('alice', 'tea', 'keyword')).statusCode).toBe(200)
    expect(embedder.started()).toBe(1)
    expect(await metric('mnemo_agent_requests_in_progress')).toBe(0)
  })
})
