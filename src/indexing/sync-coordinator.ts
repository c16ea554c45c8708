/**
 * Schedules index work in two lanes. Incremental syncs run one at a time (single-flight): a
 * request while one runs is coalesced into one follow-up sync that starts when the current
 * one ends, because the running scan may already have passed the files that changed; every
 * caller coalesced into it gets its result. Full rebuilds (rebuild.ts) run beside them, one
 * at a time: a second request while one runs is refused with INDEX_BUSY. When the index
 * was built with other settings (`stale`), any sync request also starts the rebuild; after
 * such a rebuild fails, the next automatic attempt waits AUTO_REBUILD_RETRY_MS.
 * stop() cancels both lanes between batches and waits for them.
 */
import { appError } from '../shared/errors.js'
import type { Logger } from '../shared/logger.js'
import { publicErrorMessage } from '../shared/public-error.js'
import type { SyncResult } from './sync-result.js'

/** Pause after a failed automatic rebuild before syncs start another one, in ms. */
const AUTO_REBUILD_RETRY_MS = 60_000
const AUTO_REBUILD_REASON = 'index settings changed'

export type LastSync = {
  at: string
  ok: boolean
  full: boolean
  reason: string
  durationMs: number
  error?: string
  result?: SyncResult
}

/** The follow-up sync that requests made during a running one share. */
type Queued = PromiseWithResolvers<SyncResult> & { reasons: string[]; urgent: boolean }

export type SyncCoordinatorDeps = {
  /** One incremental sync; `urgent`: a caller waits for it, so it does not pause for searches. */
  sync: (reason: string, signal: AbortSignal, urgent: boolean) => Promise<SyncResult>
  /** One full rebuild. */
  rebuild: (reason: string, signal: AbortSignal) => Promise<SyncResult>
  /** Whether the index was built with other settings and needs a rebuild. */
  stale: () => boolean
  log: Logger
  now?: () => number
  /** Told of every sync and rebuild that ends (not those stopped by shutdown): for metrics. */
  onOutcome?: (outcome: SyncOutcome) => void
}

/** How one sync or rebuild ended, and what it asked of the embedding provider. */
export type SyncOutcome = {
  full: boolean
  ok: boolean
  durationMs: number
  embedded: number
  embeddingTokens: number
  /** The provider failed during the sync (its chunks wait for a later one). */
  embedFailed: boolean
}

export function createSyncCoordinator(deps: SyncCoordinatorDeps) {
  const now = deps.now ?? Date.now
  const controller = new AbortController()
  let syncing: Promise<SyncResult> | null = null
  let rebuilding: Promise<SyncResult> | null = null
  let queued: Queued | null = null
  let lastSync: LastSync | null = null
  let completed = 0
  let idleWaiters: (() => void)[] = []
  /** When an automatic rebuild last failed (null: never). */
  let autoRebuildFailedAt: number | null = null

  /** Runs one job, records its outcome, and reports failures to status and the log only. */
  function run(full: boolean, reason: string, urgent = false): Promise<SyncResult> {
    const startedAt = now()
    const job = full ? deps.rebuild(reason, controller.signal) : deps.sync(reason, controller.signal, urgent)
    const promise = job.then(
      (result) => {
        lastSync = { at: new Date(now()).toISOString(), ok: true, full, reason, durationMs: result.durationMs, result }
        deps.log.info({ ...result, errors: result.errors.length }, full ? 'rebuild done' : 'sync done')
        deps.onOutcome?.({
          full,
          ok: true,
          durationMs: result.durationMs,
          embedded: result.embedded,
          embeddingTokens: result.embeddingTokens,
          embedFailed: result.embedError !== undefined,
        })
        return result
      },
      (err: unknown) => {
        const durationMs = now() - startedAt
        const error = publicErrorMessage(err)
        lastSync = { at: new Date(now()).toISOString(), ok: false, full, reason, durationMs, error }
        if (controller.signal.aborted) deps.log.info({ full, reason }, 'stopped by shutdown')
        else {
          deps.log.error({ err, full, reason, durationMs }, full ? 'rebuild failed' : 'sync failed')
          deps.onOutcome?.({ full, ok: false, durationMs, embedded: 0, embeddingTokens: 0, embedFailed: false })
        }
        throw err
      },
    )
    // Callers may ignore the promise (fire-and-forget syncs): failures are reported through
    // status and the log, so the rejection is marked handled here.
    promise.catch(() => undefined).finally(() => settle(full))
    return promise
  }

  function settle(full: boolean): void {
    completed++
    if (full) rebuilding = null
    else {
      syncing = null
      const next = queued
      queued = null
      if (next && !controller.signal.aborted) {
        syncing = run(false, next.reasons.join(','), next.urgent)
        syncing.then(next.resolve, next.reject)
      } else next?.reject(appError('SHUTTING_DOWN'))
    }
    if (!syncing && !rebuilding) {
      const waiters = idleWaiters
      idleWaiters = []
      waiters.forEach((resolve) => resolve())
    }
  }

  function startRebuild(reason: string): Promise<SyncResult> {
    if (rebuilding) throw appError('INDEX_BUSY')
    rebuilding = run(true, reason)
    return rebuilding
  }

  function requestSync(reason: string, urgent: boolean): Promise<SyncResult> {
    if (!syncing) {
      syncing = run(false, reason, urgent)
      return syncing
    }
    if (!queued) {
      queued = { ...Promise.withResolvers<SyncResult>(), reasons: [], urgent: false }
      queued.promise.catch(() => undefined)
    }
    if (!queued.reasons.includes(reason)) queued.reasons.push(reason)
    queued.urgent ||= urgent
    return queued.promise
  }

  /**
   * Starts a rebuild (`full`), or a sync that starts after this call: now, or as the
   * follow-up of the running one. An `urgent` sync (a request waits for it) runs without
   * giving way to searches.
   */
  function request(opts: { full: boolean; reason: string; urgent?: boolean }): Promise<SyncResult> {
    if (controller.signal.aborted) return Promise.reject(appError('SHUTTING_DOWN'))
    if (opts.full) return startRebuild(opts.reason)
    const retryDue = autoRebuildFailedAt === null || now() - autoRebuildFailedAt >= AUTO_REBUILD_RETRY_MS
    if (!rebuilding && retryDue && deps.stale()) {
      startRebuild(AUTO_REBUILD_REASON).then(
        () => (autoRebuildFailedAt = null),
        () => (autoRebuildFailedAt = now()),
      )
    }
    return requestSync(opts.reason, opts.urgent ?? false)
  }

  /** Resolves when no sync or rebuild is running (errors are reported through status). */
  function idle(): Promise<void> {
    if (!syncing && !rebuilding) return Promise.resolve()
    return new Promise((resolve) => idleWaiters.push(resolve))
  }

  return {
    request,
    idle,
    /** Cancels what runs (between batches) and refuses new work; resolves when idle. */
    stop(): Promise<void> {
      controller.abort(appError('SHUTTING_DOWN'))
      return idle()
    },
    /** Whether stop() was called: what runs is being cut off, and nothing new starts. */
    stopping: (): boolean => controller.signal.aborted,
    status: () => ({
      syncing: syncing !== null,
      rebuilding: rebuilding !== null,
      queued: queued !== null,
      completedSyncs: completed,
      lastSync,
    }),
  }
}

export type SyncCoordinator = ReturnType<typeof createSyncCoordinator>
