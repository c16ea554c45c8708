/**
 * Whether the database answers, as this process last found it (issue 30). Any query that
 * fails because the database went away (isUnreachable: a restart, a failover, a killed
 * backend) reports it with `lost`; from then on one probe (`SELECT 1` on a fresh pooled
 * connection) asks again, at once and then with backoff, until it answers. Then every
 * waiter wakes and every `onRecovered` listener hears it once (the spaces sync, so the
 * index catches up with what changed on disk meanwhile).
 *
 * A request that found the database away waits for it in `whenUp`, but never past
 * `waitMs` after the moment it was found away: a restart (1–2 s on this machine) is ridden
 * out, a long outage answers 503 at once instead of holding every request for the whole
 * wait.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { Logger } from '../../shared/logger.js'

/** Pause between probes while the database is away: the first, doubling to the longest, in ms. */
export const PROBE_MS = { first: 100, max: 1000 }

export type AvailabilityDeps = {
  /** One round trip to the database; rejects while it is away. */
  probe: () => Promise<unknown>
  log: Logger
  /**
   * Longest wait of a request for the database, counted from when it was found away, in ms
   * (MNEMO_DATABASE_WAIT_MS, 5000: longer than a restart or a managed failover's switch
   * usually takes, shorter than clients' timeouts).
   */
  waitMs: number
  now?: () => number
  /** Waits between probes (tests pass a fake). */
  pause?: (ms: number) => Promise<void>
}

export function createAvailability(deps: AvailabilityDeps) {
  const now = deps.now ?? Date.now
  const { waitMs } = deps
  const pause = deps.pause ?? ((ms: number) => sleep(ms, undefined, { ref: false }))
  /** When the database was found away (null: it answers, as far as this process knows). */
  let downSince: number | null = null
  let lastError = ''
  let closed = false
  const waiters = new Set<(up: boolean) => void>()
  const listeners = new Set<() => void>()

  async function probeUntilUp(): Promise<void> {
    for (let wait = PROBE_MS.first; !closed; wait = Math.min(wait * 2, PROBE_MS.max)) {
      try {
        await deps.probe()
        break
      } catch (err) {
        lastError = (err as Error).message
        await pause(wait)
      }
    }
    if (closed || downSince === null) return
    const awayMs = now() - downSince
    downSince = null
    deps.log.info({ awayMs }, 'the database (MNEMO_DATABASE_URL) answers again')
    for (const wake of [...waiters]) wake(true)
    for (const listener of [...listeners]) {
      try {
        listener()
      } catch (err) {
        deps.log.warn({ err }, 'a listener for the database coming back failed')
      }
    }
  }

  return {
    /** Whether the database answered last time this process asked. */
    isUp: (): boolean => downSince === null,
    /** The last probe's failure while away (for /ready's details). */
    lastError: (): string => lastError,
    /** A query found the database away: probes until it answers (once, however often told). */
    lost(err: unknown): void {
      if (downSince !== null || closed) return
      downSince = now()
      lastError = (err as Error | undefined)?.message ?? String(err)
      deps.log.warn(
        { err, waitMs },
        'the database (MNEMO_DATABASE_URL) is out of reach: requests wait for it, then answer 503 INDEX_UNAVAILABLE',
      )
      void probeUntilUp()
    },
    /**
     * Resolves true once the database answers (at once when it does now), false when it is
     * still away `waitMs` after it was found away, or on close.
     */
    whenUp(): Promise<boolean> {
      if (downSince === null) return Promise.resolve(true)
      const left = downSince + waitMs - now()
      if (left <= 0 || closed) return Promise.resolve(false)
      return new Promise((resolve) => {
        const timer = setTimeout(() => wake(false), left)
        const wake = (up: boolean) => {
          clearTimeout(timer)
          waiters.delete(wake)
          resolve(up)
        }
        waiters.add(wake)
      })
    },
    /** Calls `listener` each time the database answers again after it was away; returns the unsubscribe. */
    onRecovered(listener: () => void): () => void {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    /** Stops probing and wakes every waiter with false (shutdown). */
    close(): void {
      closed = true
      for (const wake of [...waiters]) wake(false)
      listeners.clear()
    },
  }
}

export type Availability = ReturnType<typeof createAvailability>
