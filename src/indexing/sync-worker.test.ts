import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { emptySyncResult } from './sync-result.js'
import { createSyncWorker, type SyncWorkerDeps } from './sync-worker.js'
import type { WatchHandlers, WatcherFactory } from './watcher.js'

const log = pino({ level: 'silent' })
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A watcher the test drives: `change()` reports a change, `fail()` a watcher error. */
function fakeWatcher(opts: { failStarts?: number } = {}) {
  let handlers: WatchHandlers | null = null
  let starts = 0
  let closes = 0
  const factory: WatcherFactory = async (_targets, h) => {
    starts++
    if (starts <= (opts.failStarts ?? 0)) throw new Error('cannot watch')
    handlers = h
    return {
      close: async () => {
        closes++
      },
    }
  }
  return {
    factory,
    change: () => handlers?.onChange('/ws/memory/x.md'),
    fail: () => handlers?.onError(new Error('ENOSPC')),
    starts: () => starts,
    closes: () => closes,
  }
}

function setup(overrides: Partial<SyncWorkerDeps> = {}, watcher = fakeWatcher()) {
  const requests: string[] = []
  let clock = 0
  const worker = createSyncWorker({
    watch: true,
    debounceMs: 30,
    rescanMs: 0,
    targets: { root: '/ws', scanRoots: ['MEMORY.md', 'memory'], sessions: null },
    watcherFactory: watcher.factory,
    requestSync: async (reason) => {
      requests.push(reason)
      return emptySyncResult(false, reason)
    },
    log,
    now: () => clock,
    ...overrides,
  })
  return { worker, watcher, requests, advance: (ms: number) => (clock += ms) }
}

describe('sync worker', () => {
  it('debounces a burst of changes into one sync', async () => {
    const { worker, watcher, requests } = setup()
    await worker.start()
    for (let i = 0; i < 50; i++) watcher.change()
    expect(worker.status()).toMatchObject({ dirty: true, watching: true, changesSeen: 50 })
    await sleep(80)
    expect(requests).toEqual(['watch'])
    expect(worker.status().dirty).toBe(false)
    await worker.stop()
  })

  it('syncs at once when a search arrives while changes wait, and rechecks after a quiet minute', async () => {
    const { worker, watcher, requests, advance } = setup({ debounceMs: 60_000 })
    await worker.start()
    worker.onSearch()
    expect(requests).toEqual([])
    watcher.change()
    worker.onSearch()
    expect(requests).toEqual(['watch'])
    advance(61_000)
    worker.onSearch()
    expect(requests).toEqual(['watch', 'search recheck'])
    worker.onSearch()
    expect(requests).toHaveLength(2)
    await worker.stop()
  })

  it('drains pending changes, or syncs anyway, when asked to', async () => {
    const { worker, watcher, requests } = setup({ debounceMs: 60_000 })
    await worker.start()
    watcher.change()
    await worker.drain()
    expect(requests).toEqual(['watch'])
    await worker.drain()
    expect(requests).toEqual(['watch', 'flush'])
    await worker.stop()
  })

  it('runs the periodic rescan', async () => {
    const { worker, requests } = setup({ watch: false, rescanMs: 20 })
    await worker.start()
    await sleep(70)
    expect(requests.length).toBeGreaterThanOrEqual(2)
    expect(new Set(requests)).toEqual(new Set(['rescan']))
    await worker.stop()
    const after = requests.length
    await sleep(50)
    expect(requests).toHaveLength(after)
  })

  it('restarts a watcher that fails to start or fails later, then rescans', async () => {
    const watcher = fakeWatcher({ failStarts: 1 })
    const { worker, requests } = setup({}, watcher)
    await worker.start()
    expect(worker.status().watching).toBe(false)
    await sleep(1300)
    expect(watcher.starts()).toBe(2)
    expect(worker.status().watching).toBe(true)
    expect(requests).toEqual(['watcher restart'])
    watcher.fail()
    await sleep(10)
    expect(watcher.closes()).toBe(1)
    expect(worker.status().watching).toBe(false)
    await worker.stop()
  })

  it('ignores changes and searches after stop', async () => {
    const { worker, watcher, requests } = setup()
    await worker.start()
    await worker.stop()
    watcher.change()
    worker.onSearch()
    await sleep(60)
    expect(requests).toEqual([])
  })
})
