/**
 * Background sync (SPEC §5): changes on disk reported by the watcher are debounced into one
 * incremental sync (the coordinator runs it single-flight and coalesces what arrives during
 * it). A periodic rescan, and a search arriving long after the last sync, catch what a dead
 * or overflowing watcher missed; a search while changes wait for their debounce starts the
 * sync at once. A watcher error is logged, the watcher restarted after a pause, and a
 * rescan run for whatever happened meanwhile. A watcher out of inotify watches (ENOSPC, or
 * EMFILE) is not restarted in a loop: the space falls back to a rescan every
 * FALLBACK_RESCAN_MS and tries to watch again every WATCH_RETRY_MS, and says so in its
 * status (`watch.state: "rescanning"`).
 */
import type { Logger } from '../shared/logger.js'
import { publicErrorMessage } from '../shared/public-error.js'
import type { SyncResult } from './sync-result.js'
import type { WatcherFactory, Watcher, WatchRoots } from './watcher.js'

/** A steady stream of changes still gets synced at least this often, in ms. */
const MAX_WAIT_MS = 10_000
/** A search this long after the last sync starts a background rescan, in ms. */
const SEARCH_RECHECK_MS = 60_000
/** First pause before restarting a failed watcher; doubles up to the maximum, in ms. */
const RESTART_DELAY_MS = 1000
const MAX_RESTART_DELAY_MS = 60_000
/**
 * Period of the rescan of a space whose watcher ran out of watches, in ms: a change made on
 * disk is searchable within about this long (writes through the API are indexed at once).
 */
export const FALLBACK_RESCAN_MS = 30_000
/** How often such a space tries to watch again (watches may have been freed), in ms. */
export const WATCH_RETRY_MS = 600_000

/** How the space notices changes made on disk. */
export type WatchState =
  | { state: 'watching' }
  /** MNEMO_WATCH=false: only the periodic rescan (MNEMO_SYNC_RESCAN_MS), if any. */
  | { state: 'off' }
  /** The watcher failed and restarts after a pause. */
  | { state: 'restarting'; reason: string }
  /** No inotify watch left: rescans every `rescanEveryMs` instead. */
  | { state: 'rescanning'; reason: string; rescanEveryMs: number }

/** Whether a watcher failed because the system has no watch (or descriptor) left for it. */
export function isOutOfWatches(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code
  if (code === 'ENOSPC' || code === 'EMFILE') return true
  return err instanceof Error && /system limit for number of file watchers/i.test(err.message)
}

export type SyncTriggerDeps = {
  watch: boolean
  debounceMs: number
  /** Period of the full rescan, in ms (0: none). */
  rescanMs: number
  roots: WatchRoots
  watcherFactory: WatcherFactory
  /** Requests an incremental sync (coalesced by the coordinator). */
  requestSync: (reason: string) => Promise<SyncResult>
  log: Logger
  now?: () => number
  /** Told each time a failed watcher is restarted: for metrics. */
  onWatcherRestart?: () => void
  /** Pause between rescans without a watcher, and between tries to watch again, in ms (tests shorten them). */
  fallback?: { rescanMs: number; retryMs: number }
}

/** Why watching stopped, for the status: a code, never a message (it may name server paths). */
function errorText(err: unknown): string {
  if (isOutOfWatches(err)) {
    return (err as NodeJS.ErrnoException).code === 'EMFILE'
      ? 'EMFILE: no file descriptor left for the watcher'
      : 'ENOSPC: no inotify watch left (fs.inotify.max_user_watches)'
  }
  return publicErrorMessage(err)
}

export function createSyncTrigger(deps: SyncTriggerDeps) {
  const now = deps.now ?? Date.now
  let watcher: Watcher | null = null
  let stopped = false
  let debounce: NodeJS.Timeout | null = null
  let rescan: NodeJS.Timeout | null = null
  let restart: NodeJS.Timeout | null = null
  let restartDelay = RESTART_DELAY_MS
  let state: WatchState = { state: 'off' }
  let fallbackRescan: NodeJS.Timeout | null = null
  const fallback = deps.fallback ?? { rescanMs: FALLBACK_RESCAN_MS, retryMs: WATCH_RETRY_MS }
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
    // One failure per watcher: it may report several errors before it is closed.
    let failed = false
    try {
      const started = await deps.watcherFactory(deps.roots, {
        onChange,
        onError: (err) => {
          if (failed) return
          failed = true
          void watcherFailed(err)
        },
      })
      if (failed || stopped) return void (await started.close())
      watcher = started
      if (state.state === 'rescanning') deps.log.info('file watcher started again; rescans without it end')
      state = { state: 'watching' }
      restartDelay = RESTART_DELAY_MS
      if (fallbackRescan) clearInterval(fallbackRescan)
      fallbackRescan = null
    } catch (err) {
      if (isOutOfWatches(err)) return rescanInstead(err)
      state = { state: 'restarting', reason: errorText(err) }
      deps.log.error({ err, retryInMs: restartDelay }, 'file watcher could not start; retrying')
      scheduleRestart(backOff())
    }
  }

  async function watcherFailed(err: unknown): Promise<void> {
    const old = watcher
    watcher = null
    await old?.close().catch(() => undefined)
    if (stopped) return
    if (isOutOfWatches(err)) return rescanInstead(err)
    state = { state: 'restarting', reason: errorText(err) }
    deps.log.error({ err }, 'file watcher failed; restarting it')
    deps.onWatcherRestart?.()
    scheduleRestart(backOff())
  }

  /** The pause before the next restart; each failure in a row doubles the next one. */
  function backOff(): number {
    const delay = restartDelay
    restartDelay = Math.min(restartDelay * 2, MAX_RESTART_DELAY_MS)
    return delay
  }

  /** Out of watches: rescans periodically instead, and tries to watch again now and then. */
  function rescanInstead(err: unknown): void {
    if (stopped) return
    if (state.state !== 'rescanning') {
      deps.log.warn(
        { err, rescanEveryMs: fallback.rescanMs, retryInMs: fallback.retryMs },
        'no inotify watch left (fs.inotify.max_user_watches): rescanning periodically instead of watching',
      )
    }
    state = { state: 'rescanning', reason: errorText(err), rescanEveryMs: fallback.rescanMs }
    if (!fallbackRescan) {
      fallbackRescan = setInterval(() => void sync('rescan without watcher'), fallback.rescanMs)
      fallbackRescan.unref()
      // Whatever changed while no watcher ran.
      void sync('rescan without watcher')
    }
    scheduleRestart(fallback.retryMs)
  }

  function scheduleRestart(delayMs: number): void {
    if (stopped || restart) return
    restart = setTimeout(() => {
      restart = null
      if (stopped) return
      // Whatever changed while no watcher ran is found by a rescan.
      void startWatcher().then(() => watcher && void sync('watcher restart'))
    }, delayMs)
    restart.unref()
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
    status: () => ({
      watching: watcher !== null,
      watch: state,
      dirty: pendingSince !== null,
      changesSeen: changes,
    }),
    async stop(): Promise<void> {
      stopped = true
      for (const timer of [debounce, restart]) if (timer) clearTimeout(timer)
      for (const timer of [rescan, fallbackRescan]) if (timer) clearInterval(timer)
      await watcher?.close()
      watcher = null
    },
  }
}

export type SyncTrigger = ReturnType<typeof createSyncTrigger>
