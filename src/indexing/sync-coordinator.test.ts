import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { emptySyncResult, type SyncResult } from './sync-result.js'
import { createSyncCoordinator } from './sync-coordinator.js'

type Call = { reason: string; signal: AbortSignal; finish: (err?: Error) => void }

/** Fake sync and rebuild jobs that finish only when the test says so. */
function fakeJobs(full: boolean) {
  const calls: Call[] = []
  const job = (reason: string, signal: AbortSignal): Promise<SyncResult> =>
    new Promise((resolve, reject) => {
      calls.push({
        reason,
        signal,
        finish: (err) => (err ? reject(err) : resolve({ ...emptySyncResult(full, reason), durationMs: 1 })),
      })
    })
  return { calls, job }
}

const log = pino({ level: 'silent' })
const tick = () => new Promise((r) => setImmediate(r))

function setup(stale = () => false) {
  const syncs = fakeJobs(false)
  const rebuilds = fakeJobs(true)
  let clock = 0
  const coordinator = createSyncCoordinator({ sync: syncs.job, rebuild: rebuilds.job, stale, log, now: () => clock })
  return { syncs: syncs.calls, rebuilds: rebuilds.calls, coordinator, advance: (ms: number) => (clock += ms) }
}

describe('sync coordinator', () => {
  it('runs one sync at a time and coalesces requests made during it into one follow-up', async () => {
    const { syncs, coordinator } = setup()
    const first = coordinator.request({ full: false, reason: 'a' })
    const second = coordinator.request({ full: false, reason: 'b' })
    const third = coordinator.request({ full: false, reason: 'c' })
    expect(syncs).toHaveLength(1)
    expect(coordinator.status()).toMatchObject({ syncing: true, queued: true })
    syncs[0]?.finish()
    await first
    await tick()
    expect(syncs).toHaveLength(2)
    expect(syncs[1]?.reason).toBe('b,c')
    syncs[1]?.finish()
    await expect(second).resolves.toMatchObject({ reason: 'b,c' })
    await expect(third).resolves.toMatchObject({ reason: 'b,c' })
    expect(coordinator.status()).toMatchObject({ syncing: false, queued: false, completedSyncs: 2 })
  })

  it('runs a rebuild beside incremental syncs and refuses a second one with INDEX_BUSY', async () => {
    const { syncs, rebuilds, coordinator } = setup()
    const rebuild = coordinator.request({ full: true, reason: 'api' })
    void coordinator.request({ full: false, reason: 'watch' })
    expect(rebuilds).toHaveLength(1)
    expect(syncs).toHaveLength(1)
    expect(coordinator.status()).toMatchObject({ syncing: true, rebuilding: true })
    expect(() => coordinator.request({ full: true, reason: 'again' })).toThrow(
      expect.objectContaining({ code: 'INDEX_BUSY' }),
    )
    rebuilds[0]?.finish()
    await expect(rebuild).resolves.toMatchObject({ full: true })
    expect(coordinator.status()).toMatchObject({ rebuilding: false, lastSync: { full: true, ok: true } })
    // Once it is done, another rebuild may start.
    void coordinator.request({ full: true, reason: 'later' })
    expect(rebuilds).toHaveLength(2)
  })

  it('starts a rebuild with the next sync when the index was built with other settings', () => {
    let stale = true
    const { syncs, rebuilds, coordinator } = setup(() => stale)
    void coordinator.request({ full: false, reason: 'startup' })
    void coordinator.request({ full: false, reason: 'watch' })
    expect(rebuilds.map((r) => r.reason)).toEqual(['index settings changed'])
    expect(syncs).toHaveLength(1)
    stale = false
    rebuilds[0]?.finish()
  })

  it('waits a minute before starting another automatic rebuild after one failed', async () => {
    const { syncs, rebuilds, coordinator, advance } = setup(() => true)
    void coordinator.request({ full: false, reason: 'startup' })
    rebuilds[0]?.finish(new Error('disk full'))
    syncs[0]?.finish()
    await tick()
    void coordinator.request({ full: false, reason: 'watch' })
    expect(rebuilds).toHaveLength(1)
    advance(60_000)
    await tick()
    void coordinator.request({ full: false, reason: 'watch' })
    expect(rebuilds).toHaveLength(2)
  })

  it('records a failed sync without crashing and runs the next one', async () => {
    const { syncs, coordinator } = setup()
    const failing = coordinator.request({ full: false, reason: 'a' })
    const next = coordinator.request({ full: false, reason: 'b' })
    syncs[0]?.finish(Object.assign(new Error('disk on fire at /secret/path'), { code: 'SQLITE_IOERR' }))
    await expect(failing).rejects.toThrow('disk on fire')
    expect(coordinator.status().lastSync).toMatchObject({ ok: false, error: 'SQLITE_IOERR' })
    await tick()
    syncs[1]?.finish()
    await next
    expect(coordinator.status().lastSync).toMatchObject({ ok: true, reason: 'b' })
  })

  it('idle() resolves once the running, queued and rebuilding jobs are done', async () => {
    const { syncs, rebuilds, coordinator } = setup()
    await coordinator.idle()
    void coordinator.request({ full: false, reason: 'a' })
    void coordinator.request({ full: false, reason: 'b' })
    void coordinator.request({ full: true, reason: 'c' })
    let idle = false
    void coordinator.idle().then(() => (idle = true))
    syncs[0]?.finish()
    await tick()
    await tick()
    syncs[1]?.finish()
    await tick()
    await tick()
    expect(idle).toBe(false)
    rebuilds[0]?.finish()
    await tick()
    expect(idle).toBe(true)
  })

  it('stop() aborts the running jobs, drops the queued sync and refuses new requests', async () => {
    const { syncs, rebuilds, coordinator } = setup()
    void coordinator.request({ full: false, reason: 'a' })
    const queued = coordinator.request({ full: false, reason: 'b' })
    void coordinator.request({ full: true, reason: 'c' })
    const stopped = coordinator.stop()
    expect(syncs[0]?.signal.aborted).toBe(true)
    expect(rebuilds[0]?.signal.aborted).toBe(true)
    syncs[0]?.finish(new Error('aborted'))
    rebuilds[0]?.finish(new Error('aborted'))
    await stopped
    await expect(queued).rejects.toThrow('shutting down')
    expect(syncs).toHaveLength(1)
    await expect(coordinator.request({ full: false, reason: 'd' })).rejects.toThrow('shutting down')
  })
})
