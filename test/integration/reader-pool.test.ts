import path from 'node:path'
import { pino } from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { createReaderOps } from '../../src/search/index-reader.js'
import { createReaderPool } from '../../src/search/reader-pool.js'
import { createIndexStore } from '../../src/store/index-store.js'
import { queryTerms } from '../../src/text/analyzer.js'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'
import { waitFor } from '../helpers/wait-for.js'

const QUERIES = [
  'qwen-max 模型升级',
  'redis cache staging',
  '東京の天気',
  'POSTGRES_URL',
  '路径穿越',
  'canary rollout',
  'zzz nothing',
]

const apps: TestApp[] = []
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close()
})

describe('searches in worker threads', () => {
  it('answer exactly as searches on the main thread do', async () => {
    const pooled = await buildTestApp({ corpus: true, env: { MNEMO_SEARCH_WORKERS: '2' } })
    const local = await buildTestApp({ corpus: true, env: { MNEMO_SEARCH_WORKERS: '0' } })
    apps.push(pooled, local)
    for (const query of QUERIES) {
      const [a, b] = await Promise.all([pooled.search({ query, minScore: 0 }), local.search({ query, minScore: 0 })])
      expect(a.statusCode).toBe(200)
      expect(a.body.results, query).toEqual(b.body.results)
    }
  })

  it.each(['auto', 'scan'])(
    'answer hybrid searches split over vector shards exactly as one unsplit search (%s backend)',
    async (backend) => {
      const env = { MNEMO_EMBED_PROVIDER: 'hash', MNEMO_VECTOR_BACKEND: backend }
      const pooled = await buildTestApp({ corpus: true, env: { ...env, MNEMO_SEARCH_WORKERS: '2' } })
      const local = await buildTestApp({ corpus: true, env: { ...env, MNEMO_SEARCH_WORKERS: '0' } })
      apps.push(pooled, local)
      for (const query of QUERIES) {
        for (const mode of ['hybrid', 'vector']) {
          const [a, b] = await Promise.all([
            pooled.search({ query, mode, minScore: 0 }),
            local.search({ query, mode, minScore: 0 }),
          ])
          expect(a.body.results, `${mode}: ${query}`).toEqual(b.body.results)
        }
      }
    },
  )

  it('see what a sync wrote, and no longer see what it removed', async () => {
    const t = await buildTestApp({ corpus: true, env: { MNEMO_SEARCH_WORKERS: '2' } })
    apps.push(t)
    expect((await t.search({ query: 'Shinjuku' })).body.results).toHaveLength(1)
    expect((await t.search({ query: 'Osaka' })).body.results).toEqual([])
    t.ws.write('memory/travel.md', '# Travel\nThe flight to Osaka leaves on April 2nd.\n')
    await t.sync()
    // Several searches, so every worker (each with its own term-statistics cache) answers one.
    for (let i = 0; i < 4; i++) {
      expect((await t.search({ query: 'Osaka' })).body.results[0]?.path).toBe('memory/travel.md')
      expect((await t.search({ query: 'Shinjuku' })).body.results).toEqual([])
    }
  })

  it('degrade to the main thread when the workers cannot start, instead of failing', async () => {
    const t = await buildTestApp({ corpus: true, env: { MNEMO_SEARCH_WORKERS: '0' } })
    apps.push(t)
    const store = createIndexStore({ dbPath: path.join(t.ws.dataDir, 'index.sqlite') })
    const fallback = createReaderOps(store)
    const pool = createReaderPool({
      dbPath: path.join(t.ws.base, 'missing.sqlite'),
      size: 2,
      shards: 1,
      fallback,
      log: pino({ level: 'silent' }),
    })
    try {
      const req = { terms: queryTerms('redis cache'), limit: 5, filters: {} }
      // Asked before the workers have died: re-asked elsewhere when they exit.
      const early = await pool.keyword(req)
      expect(early).toEqual(fallback.keyword(req))
      expect(early.length).toBeGreaterThan(0)
      await waitFor(() => (pool.liveWorkers() === 0 ? true : undefined))
      expect(await pool.keyword(req)).toEqual(fallback.keyword(req))
      expect([...(await pool.texts([early[0]!.id])).values()][0]).toContain('Redis')
    } finally {
      await pool.close()
      store.close()
    }
  })
})
