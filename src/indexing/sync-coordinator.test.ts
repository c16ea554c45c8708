import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { emptySyncResult, type SyncOptions, type SyncResult } from './indexer.js'
import { createSyncCoordinator } from './sync-coordinator.js'

/** A fake indexer whose syncs finish only when the test says so. */
function fakeIndexer() {
  const calls: { opts: SyncOptions; finish: (err?: Error) => void }[] = []
  return {
    calls,
    sync(opts: SyncOptions): Promise<SyncResult> {
      return new Promise((resolve, reject) => {
        calls.push({
          opts,
          finish: (err) => (err ? reject(err) : resolve({ ...emptySyncResult(opts.full, opts.reason), durationMs: 1 })),
        })
      })
    },
  }
}

const log = pino({ level: 'silent' })
const tick = () => new Promise((r) => setImmediate(r))

describe('sync coordinator', () => {
  it('runs one sync at a time and coalesces requests made during it into one follow-up', async () => {
    const indexer = fakeIndexer()
    const sync = createSyncCoordinator({ indexer, log })
    const first = sync.request({ full: false, reason: 'a' })
    const second = sync.request({ full: false, reason: 'b' })
    const third = sync.request({ full: false, reason: 'c' })
    expect(indexer.calls).toHaveLength(1)
    expect(sync.status()).toMatchObject({ syncing: true, queued: true })
    indexer.calls[0]?.finish()
    await first
    await tick()
    expect(indexer.calls).toHaveLength(2)
    expect(indexer.calls[1]?.opts).toEqual({ full: false, reason: 'b,c' })
    indexer.calls[1]?.finish()
    await expect(second).resolves.toMatchObject({ reason: 'b,c' })
    await expect(third).resolves.toMatchObject({ reason: 'b,c' })
    expect(sync.status()).toMatchObject({ syncing: false, queued: false, completedSyncs: 2 })
  })

  it('upgrades the queued sync to a full one when a full rebuild is requested', async () => {
    const indexer = fakeIndexer()
    const sync = createSyncCoordinator({ indexer, log })
    void sync.request({ full: false, reason: 'a' })
    void sync.request({ full: false, reason: 'b' })
    void sync.request({ full: true, reason: 'c' })
    indexer.calls[0]?.finish()
    await tick()
    await tick()
    expect(indexer.calls[1]?.opts.full).toBe(true)
  })

  it('refuses a second full rebuild with INDEX_BUSY while one runs or is queued', () => {
    const indexer = fakeIndexer()
    const sync = createSyncCoordinator({ indexer, log })
    void sync.request({ full: true, reason: 'a' })
    expect(() => sync.request({ full: true, reason: 'b' })).toThrow(expect.objectContaining({ code: 'INDEX_BUSY' }))
    const other = createSyncCoordinator({ indexer: fakeIndexer(), log })
    void other.request({ full: false, reason: 'a' })
    void other.request({ full: true, reason: 'b' })
    expect(() => other.request({ full: true, reason: 'c' })).toThrow(expect.objectContaining({ code: 'INDEX_BUSY' }))
  })

  it('records a failed sync without crashing and runs the next one', async () => {
    const indexer = fakeIndexer()
    const sync = createSyncCoordinator({ indexer, log })
    const failing = sync.request({ full: false, reason: 'a' })
    const next = sync.request({ full: false, reason: 'b' })
    indexer.calls[0]?.finish(Object.assign(new Error('disk on fire at /secret/path'), { code: 'SQLITE_IOERR' }))
    await expect(failing).rejects.toThrow('disk on fire')
    expect(sync.status().lastSync).toMatchObject({ ok: false, error: 'SQLITE_IOERR' })
    await tick()
    indexer.calls[1]?.finish()
    await next
    expect(sync.status().lastSync).toMatchObject({ ok: true, reason: 'b' })
  })

  it('idle() resolves once the running and queued syncs are done', async () => {
    const indexer = fakeIndexer()
    const sync = createSyncCoordinator({ indexer, log })
    await sync.idle()
    void sync.request({ full: false, reason: 'a' })
    void sync.request({ full: false, reason: 'b' })
    let idle = false
    void sync.idle().then(() => (idle = true))
    indexer.calls[0]?.finish()
    await tick()
    await tick()
    expect(idle).toBe(false)
    indexer.calls[1]?.finish()
    await tick()
    await tick()
    expect(idle).toBe(true)
  })
})
