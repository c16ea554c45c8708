import fs from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config/load-config.js'
import { probeEmbeddingDims } from '../../src/providers/probe-dims.js'
import { dimsKey, readRememberedDims, rememberDims } from '../../src/providers/remembered-dims.js'
import { createLogger } from '../../src/shared/logger.js'
import { useTestApp } from '../helpers/build-test-app.js'
import { embeddingsReply, freePort, startScriptedServer } from '../helpers/scripted-server.js'
import { startService } from '../helpers/service-process.js'
import { createTempWorkspace } from '../helpers/temp-workspace.js'
import { waitFor } from '../helpers/wait-for.js'
import type { IndexStatus } from '../helpers/api-types.js'

const servers: Awaited<ReturnType<typeof startScriptedServer>>[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close()
})

/** A loopback OpenAI-compatible server answering vectors of `dims`, or of the requested `dimensions`. */
async function embeddingServer(dims: number) {
  const server = await startScriptedServer([
    {
      reply: (request) => embeddingsReply((request as { dimensions?: number }).dimensions ?? dims)(request),
    },
  ])
  servers.push(server)
  return server
}

const env = (url: string, extra: Record<string, string> = {}) => ({
  MNEMO_EMBED_PROVIDER: 'openai',
  MNEMO_EMBED_BASE_URL: `${url}/v1`,
  MNEMO_EMBED_MODEL: 'nomic-embed-text:v1.5',
  MNEMO_EMBED_MAX_RETRIES: '0',
  MNEMO_EMBED_TIMEOUT_MS: '2000',
  ...extra,
})

const silent = createLogger({ level: 'silent' })

describe('embedding dimensions without MNEMO_EMBED_DIMENSIONS', () => {
  it('asks an unlisted model once at start-up, never sends `dimensions`, and searches hybrid with its vectors', async () => {
    const server = await embeddingServer(12)
    const t = await useTestApp({ corpus: true, env: env(server.url) })
    const probes = server.requests.filter((r) => JSON.stringify(r.body).includes('dimension probe'))
    expect(probes).toHaveLength(1)
    expect(server.requests[0]?.body).toEqual({
      model: 'nomic-embed-text:v1.5',
      input: ['dimension probe'],
      encoding_format: 'float',
    })
    await t.sync()
    const status = (await t.app.inject({ method: 'GET', url: '/index' })).json<IndexStatus>()
    expect(status.embedding).toMatchObject({ dims: 12, state: 'ready' })
    expect(status.vectorsPending).toBe(0)
    for (const r of server.requests) expect(r.body).not.toHaveProperty('dimensions')
    const res = await t.search({ query: 'redis cache', mode: 'hybrid' })
    expect(res.statusCode).toBe(200)
    expect(res.body.mode).toBe('hybrid')
    expect(res.body.degraded).toBeUndefined()
  })

  it('does not ask about a model it knows or dimensions that are set', async () => {
    const server = await embeddingServer(1536)
    const ws = createTempWorkspace()
    const settings: Record<string, string>[] = [
      { MNEMO_EMBED_MODEL: 'text-embedding-3-small' },
      { MNEMO_EMBED_DIMENSIONS: '12' },
    ]
    for (const extra of settings) {
      const config = loadConfig(
        { MNEMO_WORKSPACE: ws.root, MNEMO_DATA_DIR: ws.dataDir, ...env(server.url, extra) },
        ws.base,
      )
      const probed = await probeEmbeddingDims(config, { log: silent })
      expect(probed.embedding.probedDims).toBeUndefined()
      expect(probed.embedding.probeError).toBeUndefined()
    }
    expect(server.requests).toHaveLength(0)
    ws.cleanup()
  })
})

describe('an embedding server that does not answer at start-up', () => {
  it.each([
    ['answers 500', [{ status: 500, body: { error: 'model not loaded' } }], 'HTTP 500'],
    ['answers no embedding', [{ body: { data: [] } }], 'expected 1 embeddings, got 0'],
    ['is too slow', [{ delayMs: 3000, body: {} }], 'openai'],
  ])(
    'when it %s, starts in keyword mode and says why in degraded.vector, GET /index and /ready',
    async (_, script, reason) => {
      const server = await startScriptedServer(script)
      servers.push(server)
      const t = await useTestApp({ corpus: true, env: env(server.url, { MNEMO_EMBED_TIMEOUT_MS: '300' }) })
      const hybrid = await t.search({ query: 'redis cache' })
      expect(hybrid.statusCode).toBe(200)
      expect(hybrid.body.mode).toBe('keyword')
      expect(hybrid.body.results.length).toBeGreaterThan(0)
      expect(hybrid.body.degraded?.vector).toContain('the embedding server has not answered yet')
      expect(hybrid.body.degraded?.vector).toContain(reason)
      expect(hybrid.body.degradedCodes).toEqual({ vector: 'EMBEDDING_UNAVAILABLE' })
      const vector = await t.search({ query: 'redis cache', mode: 'vector' })
      expect(vector.statusCode).toBe(503)
      expect(vector.body.code).toBe('EMBEDDING_UNAVAILABLE')

      const status = (await t.app.inject({ method: 'GET', url: '/index' })).json<IndexStatus>()
      expect(status.embedding).toMatchObject({ provider: 'openai', model: 'nomic-embed-text:v1.5', state: 'pending' })
      expect(status.embedding.error).toContain(reason)
      expect(status.vectorsPending).toBe(status.chunks)
      const ready = await t.app.inject({ method: 'GET', url: '/ready' })
      expect(ready.statusCode).toBe(200)
      expect(ready.json()).toMatchObject({ ready: true, checks: { embedder: 'pending' } })
    },
  )

  it('embeds everything once the server comes up, without a restart: degraded, then hybrid', async () => {
    const port = await freePort()
    const t = await useTestApp({
      corpus: true,
      start: true,
      env: env(`http://127.0.0.1:${port}`),
    })
    const before = await t.search({ query: 'redis cache' })
    expect(before.body.mode).toBe('keyword')
    expect(before.body.degraded?.vector).toContain('the embedding server has not answered yet')
    const pending = (await t.app.inject({ method: 'GET', url: '/index' })).json<IndexStatus>()
    expect(pending.embedding.state).toBe('pending')
    expect(pending.embedding.nextProbeAt).toEqual(expect.any(String))

    const server = await startScriptedServer([{ reply: embeddingsReply(12) }], { port })
    servers.push(server)
    const status = await waitFor(async () => {
      const s = (await t.app.inject({ method: 'GET', url: '/index' })).json<IndexStatus>()
      return s.embedding.state === 'ready' && !s.rebuilding && s.vectorsPending === 0 && s.lastSync?.full
        ? s
        : undefined
    }, 20_000)
    expect(status.embedding).toMatchObject({ dims: 12, state: 'ready' })
    expect(status.embedding.error).toBeUndefined()
    expect(status.chunks).toBeGreaterThan(0)
    const after = await t.search({ query: 'redis cache' })
    expect(after.statusCode).toBe(200)
    expect(after.body.mode).toBe('hybrid')
    expect(after.body.degraded).toBeUndefined()
    const ready = await t.app.inject({ method: 'GET', url: '/ready' })
    expect(ready.json()).toMatchObject({ ready: true, checks: { embedder: 'ready' } })
    // Remembered: the next start needs no answer from the server to know the dimensions.
    expect(readRememberedDims(t.ws.dataDir, dimsKey(`http://127.0.0.1:${port}/v1`, 'nomic-embed-text:v1.5'))).toBe(12)
  })

  it('restarts with the server down on the dimensions it answered before: the vectors stay', async () => {
    const port = await freePort()
    const ws = createTempWorkspace({ corpus: true })
    const up = await startScriptedServer([{ reply: embeddingsReply(12) }], { port })
    const first = await useTestApp({ ws, env: env(`http://127.0.0.1:${port}`) })
    expect((await first.search({ query: 'redis cache' })).body.mode).toBe('hybrid')
    await first.app.close()
    await up.close()

    const t = await useTestApp({ ws, start: true, env: env(`http://127.0.0.1:${port}`) })
    const status = (await t.app.inject({ method: 'GET', url: '/index' })).json<IndexStatus>()
    expect(status.embedding).toMatchObject({ state: 'ready', dims: 12 })
    expect(status.vectorsPending).toBe(0)
    expect((await t.search({ query: 'redis cache' })).body.degraded?.vector).toBeDefined()
    // Back up: hybrid at once, before any background probe had to answer.
    const back = await startScriptedServer([{ reply: embeddingsReply(12) }], { port })
    servers.push(back)
    const res = await t.search({ query: 'redis cache', mode: 'hybrid' })
    expect(res.body.mode).toBe('hybrid')
    expect(res.body.degraded).toBeUndefined()
  })

  it('rebuilds when the server, once back, answers other dimensions than remembered', async () => {
    const port = await freePort()
    const ws = createTempWorkspace({ corpus: true })
    fs.mkdirSync(ws.dataDir, { recursive: true })
    rememberDims(ws.dataDir, dimsKey(`http://127.0.0.1:${port}/v1`, 'nomic-embed-text:v1.5'), 8)
    const t = await useTestApp({ ws, start: true, env: env(`http://127.0.0.1:${port}`) })
    expect((await t.app.inject({ method: 'GET', url: '/index' })).json<IndexStatus>().embedding.dims).toBe(8)
    const server = await startScriptedServer([{ reply: embeddingsReply(16) }], { port })
    servers.push(server)
    const status = await waitFor(async () => {
      const s = (await t.app.inject({ method: 'GET', url: '/index' })).json<IndexStatus>()
      return s.embedding.dims === 16 && !s.rebuilding && s.vectorsPending === 0 && s.lastSync?.full ? s : undefined
    }, 20_000)
    expect(status.chunks).toBeGreaterThan(0)
    const res = await t.search({ query: 'redis cache', mode: 'vector' })
    expect(res.statusCode).toBe(200)
    expect(res.body.results.length).toBeGreaterThan(0)
  })

  it('does not crash-loop a sidecar whose model server is down: the process starts and is ready', async () => {
    const port = await freePort()
    const ws = createTempWorkspace({ corpus: true })
    const service = startService(
      {
        MNEMO_WORKSPACE: ws.root,
        MNEMO_DATA_DIR: ws.dataDir,
        MNEMO_WATCH: 'false',
        ...env(`http://127.0.0.1:${port}`),
      },
      ws.base,
    )
    try {
      const url = await service.ready()
      const res = await fetch(`${url}/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'redis cache' }),
      })
      const body = (await res.json()) as { mode: string; degraded?: { vector?: string } }
      expect(body.mode).toBe('keyword')
      expect(body.degraded?.vector).toContain('the embedding server has not answered yet')
      expect(service.out()).toContain('the embedding server did not answer the dimensions probe')
    } finally {
      service.kill('SIGKILL')
      await service.exited
      ws.cleanup()
    }
  })
})

describe('changing the dimensions of the same model', () => {
  it('rebuilds the index with the new dimensions instead of reusing cached vectors of the old', async () => {
    const server = await embeddingServer(8)
    const ws = createTempWorkspace({ corpus: true })
    const model = { MNEMO_EMBED_MODEL: 'text-embedding-v4' }
    const first = await useTestApp({ ws, env: env(server.url, { ...model, MNEMO_EMBED_DIMENSIONS: '8' }) })
    await first.sync()
    await first.app.close()

    const t = await useTestApp({ ws, env: env(server.url, { ...model, MNEMO_EMBED_DIMENSIONS: '16' }) })
    await t.app.inject({ method: 'POST', url: '/index?wait=true', payload: {} })
    const status = await waitFor(async () => {
      const s = (await t.app.inject({ method: 'GET', url: '/index' })).json<IndexStatus>()
      return !s.rebuilding && s.embedding?.dims === 16 ? s : undefined
    })
    expect(status.vectorsPending).toBe(0)
    const res = await t.search({ query: 'redis cache', mode: 'vector' })
    expect(res.statusCode).toBe(200)
    expect(res.body.results.length).toBeGreaterThan(0)
    expect(server.requests.some((r) => (r.body as { dimensions?: number }).dimensions === 16)).toBe(true)
  })
})
