/**
 * Runs syncs one at a time (single-flight). A request while a sync runs is coalesced into
 * one follow-up sync that starts when the current one ends, because the running scan may
 * already have passed the files that changed; every caller coalesced into it gets its
 * result. A full rebuild asked for while another full rebuild is running or queued is
 * refused with INDEX_BUSY.
 */
import { appError } from '../shared/errors.js'
import type { Logger } from '../shared/logger.js'
import { publicErrorMessage } from '../shared/public-error.js'
import type { Indexer, SyncResult } from './indexer.js'

export type LastSync = {
  at: string
  ok: boolean
  full: boolean
  reason: string
  durationMs: number
  error?: string
  result?: SyncResult
}

type Queued = {
  full: boolean
  reasons: string[]
  promise: Promise<SyncResult>
  resolve: (r: SyncResult) => void
  reject: (e: unknown) => void
}

export type SyncCoordinatorDeps = {
  indexer: Pick<Indexer, 'sync'>
  log: Logger
  now?: () => number
}

export function createSyncCoordinator(deps: SyncCoordinatorDeps) {
  const now = deps.now ?? Date.now
  let running: { full: boolean; promise: Promise<SyncResult> } | null = null
  let queued: Queued | null = null
  let lastSync: LastSync | null = null
  let completed = 0
  let idleWaiters: (() => void)[] = []

  function start(full: boolean, reason: string): Promise<SyncResult> {
    const startedAt = now()
    const promise = deps.indexer.sync({ full, reason }).then(
      (result) => {
        lastSync = {
          at: new Date(now()).toISOString(),
          ok: true,
          full: result.full,
          reason,
          durationMs: result.durationMs,
          result,
        }
        deps.log.info({ ...result, errors: result.errors.length }, 'sync done')
        return result
      },
      (err: unknown) => {
        const durationMs = now() - startedAt
        lastSync = {
          at: new Date(now()).toISOString(),
          ok: false,
          full,
          reason,
          durationMs,
          error: publicErrorMessage(err),
        }
        deps.log.error({ err, full, reason, durationMs }, 'sync failed')
        throw err
      },
    )
    running = { full, promise }
    // Callers may ignore the promise (fire-and-forget syncs): failures are reported through
    // status and the log, so the rejection is marked handled here.
    promise
      .catch(() => undefined)
      .finally(() => {
        running = null
        completed++
        const next = queued
        queued = null
        if (next) {
          start(next.full, next.reasons.join(',')).then(next.resolve, next.reject)
        } else {
          const waiters = idleWaiters
          idleWaiters = []
          waiters.forEach((resolve) => resolve())
        }
      })
    return promise
  }

  /** Runs a sync now, or joins the one queued behind the running sync. */
  function request(opts: { full: boolean; reason: string }): Promise<SyncResult> {
    if (!running) return start(opts.full, opts.reason)
    if (opts.full && (running.full || queued?.full)) {
      throw appError('INDEX_BUSY')
    }
    if (!queued) {
      let resolve!: (r: SyncResult) => void
      let reject!: (e: unknown) => void
      const promise = new Promise<SyncResult>((res, rej) => {
        resolve = res
        reject = rej
      })
      promise.catch(() => undefined)
      queued = { full: false, reasons: [], promise, resolve, reject }
    }
    queued.full ||= opts.full
    if (!queued.reasons.includes(opts.reason)) queued.reasons.push(opts.reason)
    return queued.promise
  }

  /** Resolves when no sync is running or queued (errors are reported through status). */
  function idle(): Promise<void> {
    if (!running) return Promise.resolve()
    return new Promise((resolve) => idleWaiters.push(resolve))
  }

  return {
    request,
    idle,
    status: () => ({
      syncing: running !== null,
      rebuilding: running?.full === true,
      queued: queued !== null,
      completedSyncs: completed,
      lastSync,
    }),
  }
}

export type SyncCoordinator = ReturnType<typeof createSyncCoordinator>
