import { pino } from 'pino'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { emptySyncResult } from './sync-result.js'
import { createSyncTrigger, isOutOfWatches, type SyncTriggerDeps } from './sync-trigger.js'
import type { WatchHandlers, WatcherFactory } from './watcher.js'

const log = pino({ level: 'silent' })
/** Moves the fake clock on by `ms`, running the timers (debounce, rescan, restart) due meanwhile. */
const sleep = (ms: number) => vi.advanceTimersByTimeAsync(ms)

/** A watcher the test drives: `change()` reports a change, `fail()` a watcher error. */
function fakeWatcher(opts: { failStarts?: number; startError?: () => Error } = {}) {
  let handlers: WatchHandlers | null = null
  let starts = 0
  let closes = 0
  const factory: WatcherFactory = async (_targets, h) => {
    starts++
    if (starts <= (opts.failStarts ?? 0)) throw opts.startError?.() ?? new Error('cannot watch')
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
    fail: (err = new Error('the watcher died')) => handlers?.onError(err),
    starts: () => starts,
    closes: () => closes,
  }
}

function setup(overrides: Partial<SyncTriggerDeps> = {}, watcher = fakeWatcher()) {
  const requests: string[] = []
  let clock = 0
  const worker = createSyncTrigger({
    watch: true,
    debounceMs: 30,
    rescanMs: 0,
    roots: { root: '/ws', scanRoots: ['MEMORY.md', 'memory'], sessions: null },
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

describe('sync trigger', () => {
  // Fake timers: the debounce, rescans and watcher restarts run when the test moves the clock.
  beforeEach(() => void vi.useFakeTimers())
  afterEach(() => void vi.useRealTimers())

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

  it.each(['ENOSPC', 'EMFILE'])(
    'falls back to periodic rescans when the watcher finds no watch left (%s), and watches again later',
    async (code) => {
      const outOfWatches = () => Object.assign(new Error(`${code}: out of watches`), { code })
      const watcher = fakeWatcher({ failStarts: 2, startError: outOfWatches })
      const { worker, requests } = setup({ fallback: { rescanMs: 20, retryMs: 150 } }, watcher)
      await worker.start()
      expect(worker.status()).toMatchObject({
        watching: false,
        watch: { state: 'rescanning', reason: expect.stringContaining(code), rescanEveryMs: 20 },
      })
      await vi.advanceTimersByTimeAsync(100)
      // A rescan at once, then one per period; no new watcher before the retry is due.
      expect(requests.filter((r) => r === 'rescan without watcher')).toHaveLength(6)
      expect(watcher.starts()).toBe(1)
      await vi.advanceTimersByTimeAsync(50)
      expect(watcher.starts()).toBe(2)
      await vi.advanceTimersByTimeAsync(150)
      expect(watcher.starts()).toBe(3)
      expect(worker.status().watch).toEqual({ state: 'watching' })
      const rescans = requests.length
      await vi.advanceTimersByTimeAsync(100)
      expect(requests).toHaveLength(rescans)
      // Running out of watches later (a folder added) falls back again, without a restart loop.
      watcher.fail(outOfWatches())
      await vi.advanceTimersByTimeAsync(0)
      expect(worker.status().watch).toMatchObject({ state: 'rescanning' })
      expect(watcher.closes()).toBe(1)
      await vi.advanceTimersByTimeAsync(100)
      expect(watcher.starts()).toBe(3)
      await worker.stop()
    },
  )

  it('tells a watcher error that is not about watches from running out of them', () => {
    expect(isOutOfWatches(Object.assign(new Error('x'), { code: 'ENOSPC' }))).toBe(true)
    expect(isOutOfWatches(new Error('ENOSPC: System limit for number of file watchers reached'))).toBe(true)
    expect(isOutOfWatches(Object.assign(new Error('x'), { code: 'EACCES' }))).toBe(false)
    expect(isOutOfWatches(new Error('the watcher died'))).toBe(false)
  })
})
