import { afterEach, describe, expect, it } from 'vitest'
import { createFakeEmbedder } from '../helpers/fake-embedder.js'
import { useTestApp } from '../helpers/build-test-app.js'
import { startScriptedServer } from '../helpers/scripted-server.js'
import { startService, type ServiceProcess } from '../helpers/service-process.js'
import { createTempWorkspace } from '../helpers/temp-workspace.js'

const TOKEN = 'metrics-token-0123456789'
const services: ServiceProcess[] = []
const servers: Awaited<ReturnType<typeof startScriptedServer>>[] = []
afterEach(async () => {
  for (const s of services.splice(0)) s.kill('SIGKILL')
  for (const s of servers.splice(0)) await s.close()
})

/** The value of one sample line of a Prometheus text page, or undefined. */
function sample(page: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`)
  for (const line of page.split('\n')) {
    const m = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!m || m[1] !== name) continue
    const have = (m[2] ?? '').split(',')
    if (want.every((w) => have.includes(w))) return Number(m[3])
  }
  return undefined
}

describe('GET /metrics', () => {
  it('counts real searches, a failing embedding provider and the index, scraped from a running server', async () => {
    const provider = await startScriptedServer([{ status: 500, body: { error: 'model not loaded' } }])
    servers.push(provider)
    const ws = createTempWorkspace({ corpus: true })
    const service = startService(
      {
        MNEMO_WORKSPACE: ws.root,
        MNEMO_DATA_DIR: ws.dataDir,
        MNEMO_API_TOKEN: TOKEN,
        MNEMO_EMBED_PROVIDER: 'openai',
        MNEMO_EMBED_BASE_URL: `${provider.url}/v1`,
        MNEMO_EMBED_MODEL: 'text-embedding-v4',
        MNEMO_EMBED_MAX_RETRIES: '0',
        MNEMO_WATCH: 'false',
      },
      ws.base,
    )
    services.push(service)
    const url = await service.ready()
    const auth = { authorization: `Bearer ${TOKEN}` }
    const search = (query: string) =>
      fetch(`${url}/search`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      }).then((r) => r.json() as Promise<{ degraded?: { vector?: string }; results: unknown[] }>)
    const answers = await Promise.all(['redis staging port', 'qwen-max 模型升级', 'xylophone quasar'].map(search))
    expect(answers.every((a) => a.degraded?.vector !== undefined)).toBe(true)

    expect((await fetch(`${url}/metrics`)).status).toBe(401)
    const res = await fetch(`${url}/metrics`, { headers: auth })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/plain')
    const page = await res.text()
    const searchRoute = { method: 'POST', route: '/search', status_code: '200' }
    expect(sample(page, 'mnemo_http_request_duration_seconds_count', searchRoute)).toBe(3)
    expect(sample(page, 'mnemo_search_stage_duration_seconds_count', { stage: 'total' })).toBe(3)
    expect(sample(page, 'mnemo_search_stage_duration_seconds_count', { stage: 'keyword' })).toBe(3)
    expect(sample(page, 'mnemo_searches_total', { mode: 'keyword', answered: 'true' })).toBe(2)
    expect(sample(page, 'mnemo_searches_total', { mode: 'keyword', answered: 'false' })).toBe(1)
    expect(sample(page, 'mnemo_search_degraded_total', { stage: 'vector' })).toBe(3)
    expect(sample(page, 'mnemo_provider_errors_total', { kind: 'embedding', use: 'search' })).toBe(3)
    expect(sample(page, 'mnemo_provider_errors_total', { kind: 'embedding', use: 'index' })).toBeGreaterThanOrEqual(1)
    expect(sample(page, 'mnemo_embedded_chunks_total')).toBe(0)
    expect(sample(page, 'mnemo_index_files')).toBe(5)
    expect(sample(page, 'mnemo_index_chunks')).toBeGreaterThan(0)
    expect(sample(page, 'mnemo_index_vectors_pending')).toBe(sample(page, 'mnemo_index_chunks'))
    expect(sample(page, 'mnemo_last_sync_ok')).toBe(1)
    expect(sample(page, 'mnemo_sync_duration_seconds_count', { full: 'false', ok: 'true' })).toBeGreaterThanOrEqual(1)
    expect(sample(page, 'mnemo_sync_duration_seconds_count', { full: 'false', ok: 'false' })).toBeUndefined()
    expect(sample(page, 'mnemo_nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0)
    // Route templates, never raw paths: the label set stays bounded.
    expect(page).not.toContain('route="/files/MEMORY.md"')
  })

  it('counts the chunks and tokens a write embeds, and a provider failure on the write path', async () => {
    const embedder = createFakeEmbedder()
    const t = await useTestApp({ overrides: { embedder: embedder.provider } })
    const write = (rel: string, text: string) =>
      t.app.inject({ method: 'PUT', url: `/files/${rel}`, headers: { 'content-type': 'text/markdown' }, payload: text })
    expect((await write('memory/a.md', '# A\n- the deploy moved to Friday\n')).json()).toMatchObject({ indexed: true })
    const scrape = async () => (await t.app.inject({ method: 'GET', url: '/metrics' })).body
    let page = await scrape()
    expect(sample(page, 'mnemo_embedded_chunks_total')).toBe(1)
    expect(sample(page, 'mnemo_provider_tokens_total', { kind: 'embedding', use: 'index' })).toBe(10)
    expect(sample(page, 'mnemo_provider_errors_total', { kind: 'embedding', use: 'index' })).toBeUndefined()

    embedder.fail()
    expect((await write('memory/b.md', '# B\n- the backup runs at noon\n')).json()).toMatchObject({ indexed: true })
    page = await scrape()
    expect(sample(page, 'mnemo_embedded_chunks_total')).toBe(1)
    expect(sample(page, 'mnemo_provider_errors_total', { kind: 'embedding', use: 'index' })).toBe(1)
  })

  it('is the admin token’s: an agent token gets 403 AGENT_FORBIDDEN, no token 401', async () => {
    const agent = 'alice-token-0123456789'
    const t = await useTestApp({
      env: { MNEMO_API_TOKEN: TOKEN, MNEMO_AGENT_TOKENS: `main:${agent}` },
      sync: false,
    })
    const get = (token?: string) =>
      t.app.inject({ method: 'GET', url: '/metrics', headers: token ? { authorization: `Bearer ${token}` } : {} })
    const asAgent = await get(agent)
    expect(asAgent.statusCode).toBe(403)
    expect(asAgent.json()).toMatchObject({ code: 'AGENT_FORBIDDEN' })
    expect(asAgent.body).not.toContain('mnemo_')
    expect((await get()).statusCode).toBe(401)
    const asAdmin = await get(TOKEN)
    expect(asAdmin.statusCode).toBe(200)
    expect(asAdmin.body).toContain('mnemo_http_request_duration_seconds')
  })

  it('needs no token when none is configured (loopback)', async () => {
    const t = await useTestApp({ sync: false })
    const res = await t.app.inject({ method: 'GET', url: '/metrics' })
    expect(res.statusCode).toBe(200)
  })

  it('is open without a token only with MNEMO_METRICS_PUBLIC=true, and counts flushes', async () => {
    const agent = 'alice-token-0123456789'
    const t = await useTestApp({
      env: { MNEMO_API_TOKEN: TOKEN, MNEMO_AGENT_TOKENS: `main:${agent}`, MNEMO_METRICS_PUBLIC: 'true' },
    })
    const auth = { authorization: `Bearer ${TOKEN}` }
    const asAgent = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${agent}` },
    })
    expect(asAgent.statusCode).toBe(200)
    for (let i = 0; i < 2; i++) {
      const flushed = await t.app.inject({
        method: 'POST',
        url: '/flush',
        headers: auth,
        payload: { entries: ['a note'], flushId: 'f-1' },
      })
      expect(flushed.statusCode).toBe(200)
    }
    const page = await t.app.inject({ method: 'GET', url: '/metrics' })
    expect(page.statusCode).toBe(200)
    expect(sample(page.body, 'mnemo_flushes_total', { replayed: 'false' })).toBe(1)
    expect(sample(page.body, 'mnemo_flushes_total', { replayed: 'true' })).toBe(1)
    expect((await t.app.inject({ method: 'GET', url: '/files' })).statusCode).toBe(401)
  })
})
