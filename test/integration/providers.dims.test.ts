import { afterEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config/load-config.js'
import { probeEmbeddingDims } from '../../src/providers/probe-dims.js'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'
import { embeddingsReply, startScriptedServer } from '../helpers/scripted-server.js'
import { createTempWorkspace } from '../helpers/temp-workspace.js'
import { waitFor } from '../helpers/wait-for.js'

const servers: Awaited<ReturnType<typeof startScriptedServer>>[] = []
const apps: TestApp[] = []
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close()
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

type IndexStatus = { rebuilding: boolean; embedding: { dims: number | null } | null; vectorsPending: number }

describe('embedding dimensions without MNEMO_EMBED_DIMENSIONS', () => {
  it('asks an unlisted model once at start-up, never sends `dimensions`, and searches hybrid with its vectors', async () => {
    const server = await embeddingServer(12)
    const t = await buildTestApp({ corpus: true, env: env(server.url) })
    apps.push(t)
    const probes = server.requests.filter((r) => JSON.stringify(r.body).includes('dimension probe'))
    expect(probes).toHaveLength(1)
    expect(server.requests[0]?.body).toEqual({
      model: 'nomic-embed-text:v1.5',
      input: ['dimension probe'],
      encoding_format: 'float',
    })
    await t.sync()
    const status = (await t.app.inject({ method: 'GET', url: '/index' })).json<IndexStatus>()
    expect(status.embedding?.dims).toBe(12)
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
      expect((await probeEmbeddingDims(config)).embedding.probedDims).toBeUndefined()
    }
    expect(server.requests).toHaveLength(0)
    ws.cleanup()
  })

  it.each([
    ['answers 500', [{ status: 500, body: { error: 'model not loaded' } }]],
    ['answers no embedding', [{ body: { data: [] } }]],
    ['is too slow', [{ delayMs: 3000, body: {} }]],
  ])('stops start-up naming the URL and the variable when the server %s', async (_, script) => {
    const server = await startScriptedServer(script)
    servers.push(server)
    const ws = createTempWorkspace()
    const config = loadConfig(
      {
        MNEMO_WORKSPACE: ws.root,
        MNEMO_DATA_DIR: ws.dataDir,
        ...env(server.url, { MNEMO_EMBED_TIMEOUT_MS: '300' }),
      },
      ws.base,
    )
    const err = await probeEmbeddingDims(config).then(
      () => null,
      (e: unknown) => e as Error & { code?: string },
    )
    expect(err?.code).toBe('CONFIG_INVALID')
    expect(err?.message).toContain(`${server.url}/v1/embeddings`)
    expect(err?.message).toContain('MNEMO_EMBED_DIMENSIONS')
    ws.cleanup()
  })
})

describe('changing the dimensions of the same model', () => {
  it('rebuilds the index with the new dimensions instead of reusing cached vectors of the old', async () => {
    const server = await embeddingServer(8)
    const ws = createTempWorkspace({ corpus: true })
    const model = { MNEMO_EMBED_MODEL: 'text-embedding-v4' }
    const first = await buildTestApp({ ws, env: env(server.url, { ...model, MNEMO_EMBED_DIMENSIONS: '8' }) })
    await first.sync()
    await first.app.close()

    const t = await buildTestApp({ ws, env: env(server.url, { ...model, MNEMO_EMBED_DIMENSIONS: '16' }) })
    apps.push(t)
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
