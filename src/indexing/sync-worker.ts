/**
 * Background sync (SPEC §5): changes on disk reported by the watcher are debounced into one
 * incremental sync (the coordinator runs it single-flight and coalesces what arrives during
 * it). A periodic rescan, and a search arriving long after the last sync, catch what a dead
 * or overflowing watcher missed; a search while changes wait for their debounce starts the
 * sync at once. A watcher error is logged, the watcher restarted after a pause, and a
 * rescan run for whatever happened meanwhile.
 */
import type { Logger } from '../shared/logger.js'
import type { SyncResult } from './sync-result.js'
import type { WatcherFactory, Watcher, WatchTargets } from './watcher.js'

/** A steady stream of changes still gets synced at least this often, in ms. */
const MAX_WAIT_MS = 10_000
/** A search this long after the last sync starts a background rescan, in ms. */
const SEARCH_RECHECK_MS = 60_000
/** First pause before restarting a failed watcher; doubles up to the maximum, in ms. */
const RESTART_DELAY_MS = 1000
const MAX_RESTART_DELAY_MS = 60_000

export type SyncWorkerDeps = {
  watch: boolean
  debounceMs: number
  /** Period of the full rescan, in ms (0: none). */
  rescanMs: number
  targets: WatchTargets
  watcherFactory: WatcherFactory
  /** Requests an incremental sync (coalesced by the coordinator). */
  requestSync: (reason: string) => Promise<SyncResult>
  log: Logger
  now?: () => number
  /** Told each time a failed watcher is restarted: for metrics. */
  onWatcherRestart?: () => void
}

export function createSyncWorker(deps: SyncWorkerDeps) {
  const now = deps.now ?? Date.now
  let watcher: Watcher | null = null
  let stopped = false
  let debounce: NodeJS.Timeout | null = null
  let rescan: NodeJS.Timeout | null = null
  let restart: NodeJS.Timeout | null = null
  let restartDelay = RESTART_DELAY_MS
  /** When the first change not yet handed to a sync arrived (null: none pending). */
  let pendingSince: number | null = null
  let changes = 0
  let lastRequestAt = now()

  function sync(reason: string): Promise<SyncResult> {
    lastRequestAt = now()
    const job = deps.requestSync(reason)
    // Failures are in the status and the log (coordinator); nothing else to do here.
    job.catch(() => undefined)
    return job
  }

  /** Hands pending changes to a sync now. */
  function fire(): Promise<SyncResult> {
    if (debounce) clearTimeout(debounce)
    debounce = null
    pendingSince = null
    return sync('watch')
  }

  function onChange(): void {
    if (stopped) return
    changes++
    const at = now()
    pendingSince ??= at
    if (debounce) clearTimeout(debounce)
    const wait = Math.max(0, Math.min(deps.debounceMs, pendingSince + MAX_WAIT_MS - at))
    debounce = setTimeout(() => void fire(), wait)
    debounce.unref()
  }

  async function startWatcher(): Promise<void> {
    try {
      watcher = await deps.watcherFactory(deps.targets, {
        onChange,
        onError: (err) => {
          deps.log.error({ err }, 'file watcher failed; restarting it')
          deps.onWatcherRestart?.()
          void restartWatcher()
        },
      })
      restartDelay = RESTART_DELAY_MS
    } catch (err) {
      deps.log.error({ err, retryInMs: restartDelay }, 'file watcher could not start; retrying')
      scheduleRestart()
    }
  }

  function scheduleRestart(): void {
    if (stopped || restart) return
    restart = setTimeout(() => {
      restart = null
      if (stopped) return
      // Whatever changed while no watcher ran is found by a rescan.
      void startWatcher().then(() => watcher && void sync('watcher restart'))
    }, restartDelay)
    restart.unref()
    restartDelay = Math.min(restartDelay * 2, MAX_RESTART_DELAY_MS)
  }

  async function restartWatcher(): Promise<void> {
    const old = watcher
    watcher = null
    await old?.close().catch(() => undefined)
    scheduleRestart()
  }

  return {
    /** Starts watching (resolves once the watcher is ready) and the periodic rescan. */
    async start(): Promise<void> {
      if (deps.rescanMs > 0) {
        rescan = setInterval(() => void sync('rescan'), deps.rescanMs)
        rescan.unref()
      }
      if (deps.watch) await startWatcher()
    },
    /** A search is about to run: sync waiting changes now, or rescan if it has been long. */
    onSearch: (): void => {
      if (stopped) return
      if (pendingSince !== null) void fire()
      else if (now() - lastRequestAt > SEARCH_RECHECK_MS) void sync('search recheck')
    },
    /** Syncs everything changed on disk so far; resolves when the index has it. */
    drain: async (): Promise<void> => {
      await (pendingSince !== null ? fire() : sync('flush'))
    },
    status: () => ({ watching: watcher !== null, dirty: pendingSince !== null, changesSeen: changes }),
    async stop(): Promise<void> {
      stopped = true
      for (const timer of [debounce, restart]) if (timer) clearTimeout(timer)
      if (rescan) clearInterval(rescan)
      await watcher?.close()
      watcher = null
    },
  }
}

export type SyncWorker = ReturnType<typeof createSyncWorker>
