import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { RebuildStage } from '../../src/indexing/rebuild.js'
import { onPostgres } from '../helpers/test-database.js'
import { useTestApp, type TestApp } from '../helpers/build-test-app.js'
import { createFakeEmbedder } from '../helpers/fake-embedder.js'
import { waitFor } from '../helpers/wait-for.js'
import type { IndexStatus } from '../helpers/api-types.js'

async function start(onRebuildStage?: (stage: RebuildStage) => Promise<void>) {
  const t = await useTestApp({ corpus: true, overrides: onRebuildStage ? { onRebuildStage } : {} })
  return t
}

async function status(t: TestApp): Promise<IndexStatus> {
  return (await t.app.inject({ method: 'GET', url: '/index' })).json<IndexStatus>()
}

const rebuildDone = (t: TestApp) =>
  waitFor(async () => {
    const s = await status(t)
    return s.rebuilding ? undefined : s
  })

/** A hook that holds the rebuild at `stage` until released. */
function holdAt(stage: RebuildStage) {
  let release!: () => void
  let reached!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  const reachedP = new Promise<void>((resolve) => (reached = resolve))
  return {
    hook: async (s: RebuildStage) => {
      if (s !== stage) return
      reached()
      await released
    },
    reached: reachedP,
    release: () => release(),
  }
}

const tempFiles = (t: TestApp) => fs.readdirSync(t.ws.dataDir).filter((f) => f.includes('.rebuild'))

describe('full rebuild', () => {
  it('swaps in a new index while 8 clients search, with no failed or empty search', async () => {
    const hold = holdAt('swapping')
    const t = await start(hold.hook)
    const queries = ['Shinjuku', 'qwen-max 模型升级', 'POSTGRES_URL', 'redis cache staging']
    const expected = new Map<string, string[]>()
    for (const q of queries)
      expected.set(
        q,
        (await t.search({ query: q })).body.results.map((r) => r.path),
      )
    for (const paths of expected.values()) expect(paths.length).toBeGreaterThan(0)

    let running = true
    const failures: string[] = []
    let searches = 0
    const client = async (n: number) => {
      for (let i = n; running; i++) {
        const q = queries[i % queries.length] as string
        const res = await t.search({ query: q })
        searches++
        const got = res.body.results?.map((r) => r.path)
        if (res.statusCode !== 200 || JSON.stringify(got) !== JSON.stringify(expected.get(q))) {
          failures.push(`${q}: ${res.statusCode} ${JSON.stringify(got)}`)
        }
      }
    }
    const clients = Array.from({ length: 8 }, (_, n) => client(n))
    const res = await t.app.inject({ method: 'POST', url: '/index', payload: { full: true } })
    expect(res.statusCode).toBe(202)
    await hold.reached
    // Searches are held for the swap, not failed: let them queue up at the gate.
    await new Promise((r) => setTimeout(r, 50))
    hold.release()
    const done = await rebuildDone(t)
    const afterSwap = searches
    await waitFor(() => (searches > afterSwap + 40 ? true : undefined))
    running = false
    await Promise.all(clients)
    expect(failures).toEqual([])
    expect(done.lastSync).toMatchObject({ ok: true, full: true })
    expect(tempFiles(t)).toEqual([])
  })

  it('keeps the old index serving when the rebuild fails, and deletes its temp file', async () => {
    let fail = true
    const t = await start(async (stage) => {
      if (stage === 'built' && fail) throw new Error('injected failure')
    })
    const before = await t.search({ query: 'Shinjuku' })
    const res = await t.app.inject({ method: 'POST', url: '/index?wait=true', payload: { full: true } })
    expect(res.statusCode).toBe(500)
    expect(res.json()).toMatchObject({ code: 'SYNC_FAILED' })
    expect(await status(t)).toMatchObject({ rebuilding: false, files: 5, lastSync: { ok: false, full: true } })
    expect(tempFiles(t)).toEqual([])
    expect((await t.search({ query: 'Shinjuku' })).body.results).toEqual(before.body.results)
    fail = false
    await t.sync(true)
    expect(await status(t)).toMatchObject({ files: 5, lastSync: { ok: true, full: true } })
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body
    expect(metrics).toMatch(/^mnemo_sync_duration_seconds_count\{full="true",ok="false"\} 1$/m)
    expect(metrics).toMatch(/^mnemo_sync_duration_seconds_count\{full="true",ok="true"\} 1$/m)
  })

  it('carries changes made during the rebuild into the index it swaps in', async () => {
    const hold = holdAt('built')
    const t = await start(hold.hook)
    const res = await t.app.inject({ method: 'POST', url: '/index', payload: { full: true } })
    expect(res.statusCode).toBe(202)
    await hold.reached
    t.ws.write('memory/new.md', '# New\nThe zeppelin hangar opens in May.\n')
    t.ws.remove('memory/travel.md')
    await t.sync()
    expect((await t.search({ query: 'zeppelin' })).body.results.map((r) => r.path)).toEqual(['memory/new.md'])
    hold.release()
    expect(await rebuildDone(t)).toMatchObject({ files: 5, lastSync: { ok: true, full: true } })
    expect((await t.search({ query: 'zeppelin' })).body.results.map((r) => r.path)).toEqual(['memory/new.md'])
    expect((await t.search({ query: 'Shinjuku' })).body.results).toEqual([])
  })

  it('re-embeds nothing it has embedded before: the embedding cache outlives the swap', async () => {
    const embedder = createFakeEmbedder()
    const t = await useTestApp({ corpus: true, overrides: { embedder: embedder.provider } })
    const embeddedFirst = embedder.calls()
    expect(embeddedFirst).toBeGreaterThan(0)
    await t.sync(true)
    const status = (await t.app.inject({ method: 'GET', url: '/index' })).json<{
      vectorsPending: number
      lastSync: { full: boolean; embedded: number; embedCacheHits: number }
    }>()
    expect(status.lastSync).toMatchObject({ full: true, embedded: 0 })
    expect(status.lastSync.embedCacheHits).toBeGreaterThan(0)
    expect(status.vectorsPending).toBe(0)
    expect(embedder.calls()).toBe(embeddedFirst)
    const hybrid = await t.search({ query: 'Shinjuku' })
    expect(hybrid.body).toMatchObject({ mode: 'hybrid' })
    expect(hybrid.body.degraded).toBeUndefined()
  })

  it('answers a request waiting for a sync that a shutdown cuts off with 503 SHUTTING_DOWN, not a failure', async () => {
    const embedder = createFakeEmbedder()
    const t = await useTestApp({ corpus: true, overrides: { embedder: embedder.provider } })
    t.ws.write('memory/2026-06-01.md', '## 10:00\n- the heron ledger moved to the east shed\n')
    // The sync is held embedding the new file when the service starts shutting down: the
    // call is cut short, not waited for.
    embedder.slow(60_000)
    const before = embedder.calls()
    const waiting = t.app.inject({ method: 'POST', url: '/index?wait=true', payload: {} })
    await waitFor(() => (embedder.calls() > before ? true : undefined))
    const res = await Promise.all([waiting, t.app.close()]).then(([r]) => r)
    expect(res.statusCode).toBe(503)
    expect(res.json()).toMatchObject({ code: 'SHUTTING_DOWN' })
  })

  // SQLite files (PostgreSQL's counterpart: test/postgres/).
  it.skipIf(onPostgres())('removes a temp file left by a killed rebuild at start-up', async () => {
    const t = await start()
    await t.app.close()
    const temp = path.join(t.ws.dataDir, 'index.sqlite.rebuild')
    fs.writeFileSync(temp, 'half-built')
    fs.writeFileSync(`${temp}-wal`, 'wal')
    const again = await useTestApp({ ws: t.ws })
    expect(tempFiles(again)).toEqual([])
    expect((await again.search({ query: 'Shinjuku' })).body.results).toHaveLength(1)
  })
})
