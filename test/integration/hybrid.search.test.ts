import { describe, expect, it } from 'vitest'
import type { ContainerOverrides } from '../../src/wiring/container.js'
import { onPostgres } from '../helpers/test-database.js'
import { useTestApp, type SearchBody, type TestApp } from '../helpers/build-test-app.js'
import { createFakeEmbedder, type FakeEmbedder } from '../helpers/fake-embedder.js'
import { createFakeReranker } from '../helpers/fake-reranker.js'
import { createTempWorkspace, type TempWorkspace } from '../helpers/temp-workspace.js'
import { waitFor } from '../helpers/wait-for.js'
import type { IndexStatus } from '../helpers/api-types.js'

/** Notes where keyword and meaning disagree: only notes.md says "automobile". */
function writeNotes(ws: TempWorkspace): void {
  ws.write('memory/cars.md', '# Garage\nTook the sedan to the mechanic for an oil change and brake service.\n')
  ws.write('memory/notes.md', '# Reading list\nA history of the automobile industry in Detroit.\n')
  ws.write('memory/sleep.md', '# Health\nInsomnia again; tried a nap after lunch.\n')
  ws.write('MEMORY.md', '# Preferences\nThe user is cheerful in the mornings.\n')
}

async function start(
  opts: {
    env?: Record<string, string>
    overrides?: ContainerOverrides
    ws?: TempWorkspace
    embedder?: FakeEmbedder
  } = {},
) {
  const embedder = opts.embedder ?? createFakeEmbedder()
  const ws = opts.ws ?? createTempWorkspace()
  if (!opts.ws) writeNotes(ws)
  const t = await useTestApp({
    ws,
    env: opts.env ?? {},
    overrides: { embedder: embedder.provider, ...opts.overrides },
  })
  return { t, embedder }
}

async function status(t: TestApp): Promise<IndexStatus> {
  return (await t.app.inject({ method: 'GET', url: '/index' })).json<IndexStatus>()
}

const paths = (body: SearchBody) => body.results.map((r) => r.path)

describe('hybrid search', () => {
  it('merges keyword and vector candidates by 0.7·vectorScore + 0.3·textScore where they disagree', async () => {
    const { t } = await start()
    const keyword = await t.search({ query: 'automobile maintenance', mode: 'keyword', minScore: 0 })
    const vector = await t.search({ query: 'automobile maintenance', mode: 'vector', minScore: 0 })
    const hybrid = await t.search({ query: 'automobile maintenance', minScore: 0 })
    expect(paths(keyword.body)).toEqual(['memory/notes.md'])
    expect(paths(vector.body)[0]).toBe('memory/cars.md')
    expect(hybrid.body.mode).toBe('hybrid')
    expect(paths(hybrid.body).slice(0, 2).sort()).toEqual(['memory/cars.md', 'memory/notes.md'])
    for (const r of hybrid.body.results) {
      expect(r.score).toBeCloseTo(0.7 * r.vectorScore + 0.3 * r.textScore, 5)
    }
    const scores = hybrid.body.results.map((r) => r.score)
    expect([...scores].sort((a, b) => b - a)).toEqual(scores)
    expect(hybrid.body.results.find((r) => r.path === 'memory/cars.md')).toMatchObject({ textScore: 0 })
  })

  it('reports usage and per-stage timings', async () => {
    const { t } = await start()
    const res = await t.search({ query: 'car repair' })
    expect(res.body).toMatchObject({
      mode: 'hybrid',
      usage: { embeddingTokens: 7, rerankTokens: 0 },
      timingsMs: {
        keyword: expect.any(Number),
        embed: expect.any(Number),
        vector: expect.any(Number),
        total: expect.any(Number),
      },
    })
  })

  it('answers by keyword with degraded.vector when the embedder is down, and good hits still pass minScore', async () => {
    const { t, embedder } = await start()
    embedder.fail()
    const res = await t.search({ query: 'automobile history' })
    expect(res.statusCode).toBe(200)
    expect(res.body.mode).toBe('keyword')
    expect(res.body.degraded?.vector).toContain('embedding service down')
    expect(res.body.degradedCodes).toEqual({ vector: 'PROVIDER_FAILED' })
    const top = res.body.results[0]
    expect(top).toMatchObject({ path: 'memory/notes.md', vectorScore: 0 })
    expect(top?.score).toBe(top?.textScore)
    expect(top?.score).toBeGreaterThan(0.35)
  })

  it('answers within the query time limit when the embedder is slow', async () => {
    const { t, embedder } = await start({ env: { MNEMO_EMBED_QUERY_TIMEOUT_MS: '150' } })
    embedder.slow(2000)
    const started = Date.now()
    const res = await t.search({ query: 'automobile history' })
    expect(Date.now() - started).toBeLessThan(1500)
    expect(res.body.degraded?.vector).toMatch(/150 ms/)
    expect(res.body.degradedCodes).toEqual({ vector: 'PROVIDER_TIMEOUT' })
    expect(paths(res.body)).toEqual(['memory/notes.md'])
  })

  it('fails mode "vector" with 502 or 504 when the embedder cannot answer', async () => {
    const { t, embedder } = await start({ env: { MNEMO_EMBED_QUERY_TIMEOUT_MS: '150' } })
    embedder.fail()
    const failed = await t.search({ query: 'car', mode: 'vector' })
    expect(failed.statusCode).toBe(502)
    expect(failed.body.code).toBe('PROVIDER_FAILED')
    embedder.recover()
    embedder.slow(2000)
    const slow = await t.search({ query: 'a different car question', mode: 'vector' })
    expect(slow.statusCode).toBe(504)
    expect(slow.body.code).toBe('PROVIDER_TIMEOUT')
  })

  it('reranks the head, reporting rerankScore, unless the request says rerank: false', async () => {
    const reranker = createFakeReranker('Insomnia')
    const { t } = await start({ overrides: { reranker: reranker.provider } })
    const res = await t.search({ query: 'automobile nap', minScore: 0 })
    expect(res.body.results[0]).toMatchObject({ path: 'memory/sleep.md', rerankScore: 0.9, score: 0.9 })
    expect(res.body.usage.rerankTokens).toBeGreaterThan(0)
    const calls = reranker.calls()
    const plain = await t.search({ query: 'automobile nap', minScore: 0, rerank: false })
    expect(reranker.calls()).toBe(calls)
    expect(plain.body.results.every((r) => !('rerankScore' in r))).toBe(true)
  })

  it("puts every result on the reranker's scale, reranking at least maxResults candidates", async () => {
    const reranker = createFakeReranker('Insomnia')
    const { t } = await start({ env: { MNEMO_RERANK_TOP_N: '1' }, overrides: { reranker: reranker.provider } })
    const res = await t.search({ query: 'automobile nap history', minScore: 0, maxResults: 3 })
    expect(res.body.results.length).toBeGreaterThan(1)
    for (const r of res.body.results) expect(r.score).toBe(r.rerankScore)
    const kept = await t.search({ query: 'automobile nap history', minScore: 0.5, maxResults: 3 })
    expect(kept.body.results.map((r) => r.rerankScore)).toEqual([0.9])
  })

  it('keeps the merged order with degraded.rerank when the reranker times out or fails', async () => {
    const reranker = createFakeReranker('Insomnia')
    const { t } = await start({ env: { MNEMO_RERANK_TIMEOUT_MS: '150' }, overrides: { reranker: reranker.provider } })
    const merged = await t.search({ query: 'automobile maintenance', minScore: 0, rerank: false })
    reranker.slow(2000)
    const slow = await t.search({ query: 'automobile maintenance', minScore: 0 })
    expect(slow.statusCode).toBe(200)
    expect(slow.body.degraded?.rerank).toMatch(/150 ms/)
    expect(slow.body.degradedCodes).toEqual({ rerank: 'PROVIDER_TIMEOUT' })
    expect(paths(slow.body)).toEqual(paths(merged.body))
    reranker.slow(0)
    reranker.fail()
    const failed = await t.search({ query: 'automobile maintenance', minScore: 0 })
    expect(failed.body.degraded?.rerank).toContain('reranker down')
    expect(failed.body.degradedCodes).toEqual({ rerank: 'PROVIDER_FAILED' })
    expect(failed.body.results.map((r) => r.score)).toEqual(merged.body.results.map((r) => r.score))
  })

  it('returns maxResults hits through filters that exclude most candidates', async () => {
    const ws = createTempWorkspace()
    for (let i = 0; i < 30; i++)
      ws.write(`memory/a/${i}.md`, `# Car ${i}\nThe sedan number ${i} went to the mechanic.\n`)
    for (let i = 0; i < 3; i++) ws.write(`memory/b/${i}.md`, `# Van ${i}\nA vehicle for the team trip ${i}.\n`)
    ws.write('MEMORY.md', '# Fleet\nAll cars are serviced by the mechanic in spring.\n')
    const { t } = await start({ ws })
    const prefixed = await t.search({
      query: 'car mechanic',
      mode: 'vector',
      pathPrefix: 'memory/b/',
      minScore: 0,
      maxResults: 5,
    })
    expect(paths(prefixed.body).sort()).toEqual(['memory/b/0.md', 'memory/b/1.md', 'memory/b/2.md'])
    const shared = await t.search({
      query: 'cars serviced by the mechanic',
      mode: 'vector',
      scope: 'shared',
      minScore: 0,
      maxResults: 10,
    })
    expect(shared.body.results).toHaveLength(10)
    expect(paths(shared.body)).not.toContain('MEMORY.md')
  })
})

describe('embedding during indexing', () => {
  it('never re-embeds an unchanged chunk: re-indexing hits the cache', async () => {
    const { t, embedder } = await start()
    const first = await status(t)
    expect(first.lastSync).toMatchObject({ embedded: 4 })
    expect(first.embeddingCacheEntries).toBe(4)
    const calls = embedder.calls()
    await t.sync(true)
    expect(embedder.calls()).toBe(calls)
    expect((await status(t)).lastSync).toMatchObject({ embedded: 0, embedCacheHits: 4 })
    t.ws.write('memory/sleep.md', '# Health\nSlept well; no nap needed.\n')
    await t.sync()
    expect((await status(t)).lastSync).toMatchObject({ embedded: 1 })
  })

  it('keeps chunks searchable by keyword during an outage, and gives them vectors at a later sync', async () => {
    const embedder = createFakeEmbedder()
    embedder.fail()
    const { t } = await start({ embedder })
    const during = await status(t)
    expect(during.vectorsPending).toBe(4)
    expect(during.lastSync?.embedError).toContain('embedding service down')
    expect(paths((await t.search({ query: 'automobile', mode: 'keyword' })).body)).toEqual(['memory/notes.md'])
    embedder.recover()
    await t.sync()
    expect((await status(t)).vectorsPending).toBe(0)
    expect(paths((await t.search({ query: 'car repair', mode: 'vector' })).body)[0]).toBe('memory/cars.md')
  })

  it('refuses vectors of the wrong size before anything is stored', async () => {
    const embedder = createFakeEmbedder({ dims: 16 })
    const wrong = { ...embedder.provider, dims: 24 }
    const { t } = await start({ overrides: { embedder: wrong }, embedder })
    const s = await status(t)
    expect(s.embedding.dims).toBe(24)
    expect(s.vectorsPending).toBe(4)
    expect(s.lastSync?.embedError).toMatch(/expected 24 dimensions, got 16/)
    const res = await t.search({ query: 'car repair' })
    expect(res.statusCode).toBe(200)
    expect(res.body.degraded?.vector).toMatch(/dimensions/)
  })

  it('rebuilds with the new model or dimensions, without mixing vectors, answering by keyword meanwhile', async () => {
    const ws = createTempWorkspace()
    writeNotes(ws)
    const before = await start({ ws, embedder: createFakeEmbedder({ dims: 16 }) })
    expect((await status(before.t)).embedding.dims).toBe(16)
    await before.t.app.close()
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const after = await start({
      ws,
      embedder: createFakeEmbedder({ dims: 24, model: 'fake-bigger' }),
      overrides: { onRebuildStage: async (stage) => (stage === 'built' ? held : undefined) },
    })
    // The old index (16-dim vectors) serves until the rebuild is swapped in: by keyword.
    expect(await status(after.t)).toMatchObject({ rebuilding: true })
    const meanwhile = await after.t.search({ query: 'sedan mechanic' })
    expect(meanwhile.body).toMatchObject({
      mode: 'keyword',
      degraded: { vector: expect.stringContaining('rebuilt') },
      degradedCodes: { vector: 'INDEX_REBUILDING' },
    })
    // Counted as a degraded search, not as a provider failure.
    const metrics = (await after.t.app.inject({ method: 'GET', url: '/metrics' })).body
    expect(metrics).toContain('mnemo_search_degraded_total{stage="vector"} 1')
    expect(metrics).not.toContain('mnemo_provider_errors_total{kind="embedding",use="search"}')
    expect(paths(meanwhile.body)[0]).toBe('memory/cars.md')
    expect((await after.t.search({ query: 'car repair', mode: 'vector' })).statusCode).toBe(503)
    release()
    const s = await waitFor(async () => {
      const current = await status(after.t)
      return current.rebuilding ? undefined : current
    })
    expect(s).toMatchObject({ embedding: { dims: 24 }, vectorsPending: 0, lastSync: { full: true, embedded: 4 } })
    const swapped = await after.t.search({ query: 'car repair', mode: 'vector' })
    expect(paths(swapped.body)[0]).toBe('memory/cars.md')
  })
})

describe('vector backends', () => {
  // SQLite files (PostgreSQL's counterpart: test/postgres/).
  it.skipIf(onPostgres())(
    'falls back to an exact in-memory scan when sqlite-vec cannot load, with the same results',
    async () => {
      const { t: vec } = await start()
      const { t: scan } = await start({
        overrides: {
          loadVectorExtension: () => {
            throw new Error('cannot load extension')
          },
        },
      })
      expect((await status(vec)).vectorBackend).toBe('sqlite-vec')
      expect((await status(scan)).vectorBackend).toBe('scan')
      for (const query of ['car repair', 'insomnia', 'cheerful morning']) {
        const a = await vec.search({ query, minScore: 0 })
        const b = await scan.search({ query, minScore: 0 })
        expect(b.body.results.map((r) => [r.path, r.score])).toEqual(a.body.results.map((r) => [r.path, r.score]))
      }
    },
  )
})
