import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'
import { onPostgres } from '../helpers/test-database.js'
import { waitFor } from '../helpers/wait-for.js'
import type { IndexStatus } from '../helpers/api-types.js'

let t: TestApp
afterEach(() => t.close())

async function status(): Promise<IndexStatus> {
  return (await t.app.inject({ method: 'GET', url: '/index' })).json<IndexStatus>()
}

async function syncAndStatus(full = false): Promise<IndexStatus> {
  const res = await t.app.inject({ method: 'POST', url: '/index?wait=true', payload: { full } })
  expect(res.statusCode).toBe(200)
  return res.json<IndexStatus>()
}

/** A markdown day file of about `lines` bullet lines (a large workspace for the tests). */
const dayFile = (day: number, lines: number) =>
  `# 2026-01-${String(day).padStart(2, '0')}\n` +
  Array.from({ length: lines }, (_, i) => `- note ${i} about project ${day} and 记忆 ${i % 50}`).join('\n')

describe('POST /index and GET /index', () => {
  it('indexes the workspace and reports counts', async () => {
    t = await buildTestApp({ corpus: true, sync: false })
    const before = await status()
    expect(before).toMatchObject({
      files: 0,
      chunks: 0,
      lastSync: null,
      engine: { kind: onPostgres() ? 'postgres' : 'sqlite', ok: true },
    })
    const after = await syncAndStatus()
    expect(after).toMatchObject({
      files: 5,
      syncing: false,
      lastSync: { ok: true, full: false, scanned: 5, indexed: 5, unchanged: 0, deleted: 0 },
    })
    expect(after.chunks).toBeGreaterThanOrEqual(5)
  })

  it('re-indexes only the files whose content changed', async () => {
    t = await buildTestApp({ corpus: true })
    t.ws.write('memory/travel.md', '# Travel\nThe flight to Osaka is on April 2nd.\n')
    const after = await syncAndStatus()
    expect(after.lastSync).toMatchObject({ full: false, indexed: 1, unchanged: 4, deleted: 0 })
    expect((await t.search({ query: 'Osaka flight' })).body.results[0]?.path).toBe('memory/travel.md')
    expect((await t.search({ query: 'Shinjuku' })).body.results).toEqual([])
  })

  it('skips a file whose mtime changed but whose SHA-256 did not', async () => {
    t = await buildTestApp({ corpus: true })
    const text = t.ws.read('memory/travel.md')
    t.ws.write('memory/travel.md', text)
    const after = await syncAndStatus()
    expect(after.lastSync).toMatchObject({ indexed: 0, unchanged: 5 })
  })

  it('drops every chunk of a deleted or renamed file', async () => {
    t = await buildTestApp({ corpus: true })
    t.ws.remove('memory/travel.md')
    t.ws.write('memory/trips/2026.md', t.ws.read('memory/2026-02-17.md'))
    t.ws.remove('memory/2026-02-17.md')
    const after = await syncAndStatus()
    expect(after.lastSync).toMatchObject({ deleted: 2, indexed: 1 })
    expect(after.files).toBe(4)
    expect((await t.search({ query: 'Shinjuku passport' })).body.results).toEqual([])
    const moved = await t.search({ query: '路径穿越测试' })
    expect(moved.body.results.map((r) => r.path)).toEqual(['memory/trips/2026.md'])
    const files = (await t.app.inject({ method: 'GET', url: '/files' })).json<{ files: { path: string }[] }>()
    expect(files.files.map((f) => f.path)).not.toContain('memory/travel.md')
  })

  it('re-chunks every file on {full: true}', async () => {
    t = await buildTestApp({ corpus: true })
    const full = await syncAndStatus(true)
    expect(full.lastSync).toMatchObject({ full: true, indexed: 5, unchanged: 0 })
    expect((await t.search({ query: 'Shinjuku' })).body.results).toHaveLength(1)
  })

  it('rebuilds with new chunking settings in a new index and swaps it in', async () => {
    const first = await buildTestApp({ corpus: true })
    const chunksBefore = (await first.app.inject({ method: 'GET', url: '/index' })).json<IndexStatus>().chunks
    await first.app.close()
    t = await buildTestApp({
      ws: first.ws,
      env: { MNEMO_CHUNK_TOKENS: '32', MNEMO_CHUNK_OVERLAP_TOKENS: '4' },
      sync: false,
    })
    // The first sync finds the index built with other settings and starts the rebuild.
    const synced = await syncAndStatus()
    expect(synced.lastSync).toMatchObject({ full: false, unchanged: 5 })
    // The rebuild and that sync run side by side and either may finish last, so lastSync
    // cannot tell which one it reports: the count of finished jobs and the chunks can.
    const after = await waitFor(async () => {
      const s = await status()
      return s.rebuilding || s.syncing ? undefined : s
    })
    expect(after.completedSyncs).toBe(2)
    expect(after.lastSync).toMatchObject({ ok: true })
    expect(after.chunks).toBeGreaterThan(chunksBefore)
    expect(fs.existsSync(path.join(t.ws.dataDir, 'index.sqlite.rebuild'))).toBe(false)
    // The swapped-in index carries the new settings: the next sync finds nothing stale.
    const again = await syncAndStatus()
    expect(again).toMatchObject({ rebuilding: false, chunks: after.chunks })
    expect(again.lastSync).toMatchObject({ full: false, unchanged: 5, indexed: 0 })
  })

  it('answers 202 at once without wait, and the sync completes in the background', async () => {
    t = await buildTestApp({ corpus: true, sync: false })
    const res = await t.app.inject({ method: 'POST', url: '/index', payload: {} })
    expect(res.statusCode).toBe(202)
    expect(res.json()).toMatchObject({ syncing: true })
    await t.container.services.gateway.syncIndex(
      { agent: 'main', user: null },
      { full: false, wait: true, reason: 'test', admin: true },
    )
    expect(await status()).toMatchObject({ files: 5, syncing: false })
  })

  it('accepts POST /index with no body at all', async () => {
    t = await buildTestApp({ corpus: true, sync: false })
    const res = await t.app.inject({ method: 'POST', url: '/index?wait=true' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ files: 5 })
  })

  it('refuses a second full re-index while one runs with 409 INDEX_BUSY', async () => {
    t = await buildTestApp({ sync: false })
    for (let d = 1; d <= 20; d++) t.ws.write(`memory/2026-01-${String(d).padStart(2, '0')}.md`, dayFile(d, 400))
    const first = await t.app.inject({ method: 'POST', url: '/index', payload: { full: true } })
    expect(first.statusCode).toBe(202)
    const second = await t.app.inject({ method: 'POST', url: '/index', payload: { full: true } })
    expect(second.statusCode).toBe(409)
    expect(second.json()).toMatchObject({ code: 'INDEX_BUSY' })
    // Incremental syncs run beside the rebuild.
    const incremental = await t.app.inject({ method: 'POST', url: '/index', payload: {} })
    expect(incremental.statusCode).toBe(202)
    expect(incremental.json()).toMatchObject({ syncing: true, rebuilding: true })
  })

  it('keeps answering /health and searches while a large workspace is being indexed', async () => {
    t = await buildTestApp({ sync: false })
    // Large enough (about 50,000 lines) that indexing takes many time slices on any machine.
    for (let d = 1; d <= 30; d++) {
      for (const part of ['a', 'b', 'c'])
        t.ws.write(`memory/2026-01-${String(d).padStart(2, '0')}-${part}.md`, dayFile(d, 600))
    }
    const job = t.container.services.gateway.syncIndex(
      { agent: 'main', user: null },
      { full: false, wait: true, reason: 'test', admin: true },
    )
    let answeredDuringSync = 0
    while ((await status()).syncing) {
      const health = await t.app.inject({ method: 'GET', url: '/health' })
      expect(health.statusCode).toBe(200)
      const search = await t.search({ query: 'project note' })
      expect(search.statusCode).toBe(200)
      answeredDuringSync++
    }
    await job
    expect(answeredDuringSync).toBeGreaterThan(1)
    expect((await status()).files).toBe(90)
  })

  it.each([
    [{ full: 'yes' }, '/index'],
    [{ mode: 'full' }, '/index'],
    [{}, '/index?wait=maybe'],
    [{}, '/index?force=true'],
  ])('rejects %j at %s with 400 VALIDATION_FAILED', async (payload, url) => {
    t = await buildTestApp({ sync: false })
    const res = await t.app.inject({ method: 'POST', url, payload })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ code: 'VALIDATION_FAILED' })
  })
})

describe('GET /health and GET /ready', () => {
  it('is live at once and ready only after the first sync', async () => {
    const engine = onPostgres() ? 'postgres' : 'sqlite'
    t = await buildTestApp({ corpus: true, sync: false })
    const health = await t.app.inject({ method: 'GET', url: '/health' })
    expect(health.statusCode).toBe(200)
    expect(health.json()).toMatchObject({ status: 'ok' })
    const notReady = await t.app.inject({ method: 'GET', url: '/ready' })
    expect(notReady.statusCode).toBe(503)
    expect(notReady.json()).toEqual({
      ready: false,
      checks: {
        index: 'open',
        initialSync: 'pending',
        lastSync: 'none',
        workspace: 'writable',
        embedder: 'none',
        folder: 'held',
        engine,
        database: 'ok',
      },
    })
    await t.sync()
    const ready = await t.app.inject({ method: 'GET', url: '/ready' })
    expect(ready.statusCode).toBe(200)
    expect(ready.json()).toEqual({
      ready: true,
      checks: {
        index: 'open',
        initialSync: 'done',
        lastSync: 'ok',
        workspace: 'writable',
        embedder: 'none',
        folder: 'held',
        engine,
        database: 'ok',
      },
    })
  })
})
