/**
 * The `maxOpen` places of the agent registry (agent-registry.ts), a strict bound on open
 * spaces (descriptors and watches are per open space). A space takes a place before it is
 * built and frees it once closed. A request for a space with no place free closes the least
 * recently used idle one (no request in progress, no sync running), and after
 * PREEMPT_AFTER_MS also one whose sync runs (it resumes when the space opens again).
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { appError } from '../shared/errors.js'
import type { Logger } from '../shared/logger.js'

/** How long a request waits for an idle agent to close before closing a busy one, in ms. */
const PREEMPT_AFTER_MS = 1000

/** What the places see of a registry entry. */
export type PlacedEntry = {
  placed: boolean
  closing: Promise<void> | null
  leases: number
  lastUsedMs: number
  space: { isBusy(): boolean } | null
}

export function createOpenPlaces<E extends PlacedEntry>(deps: {
  maxOpen: number
  /** The registry's entries now. */
  entries: () => Iterable<E>
  /** Starts closing an entry (its place is freed when the close is done). */
  close: (entry: E) => void
  /** Whether the registry is closed: waiting for a place then ends in 503 SHUTTING_DOWN. */
  closed: () => boolean
  now: () => number
  log: Logger
}) {
  /** Resolved (and replaced) whenever a place may have come free. */
  let changed = Promise.withResolvers<void>()
  let warnedFull = false

  const count = () => [...deps.entries()].filter((e) => e.placed).length

  /**
   * Starts closing least recently used open entries without a request until one more fits;
   * `busyToo`: also those whose sync runs (it is cancelled between batches).
   */
  function evict(busyToo: boolean): void {
    const staying = () => [...deps.entries()].filter((e) => e.placed && !e.closing).length
    const candidates = [...deps.entries()]
      .filter((e) => e.space && !e.closing && e.leases === 0 && (busyToo || !e.space.isBusy()))
      .sort((a, b) => a.lastUsedMs - b.lastUsedMs)
    for (const victim of candidates) {
      if (staying() < deps.maxOpen) return
      deps.close(victim)
    }
  }

  return {
    /** Places taken now. */
    count,
    /** Wakes the requests waiting for a place, or for a space's leases to end. */
    notify: (): void => {
      const was = changed
      changed = Promise.withResolvers<void>()
      was.resolve()
    },
    /** Resolves at the next notify(). */
    changed: () => changed.promise,
    /** Waits for a place and gives it to `entry`. */
    async take(entry: E): Promise<void> {
      const since = deps.now()
      for (;;) {
        if (deps.closed()) throw appError('SHUTTING_DOWN')
        if (count() < deps.maxOpen) {
          entry.placed = true
          warnedFull = false
          return
        }
        const waited = deps.now() - since >= PREEMPT_AFTER_MS
        evict(waited)
        if (waited && !warnedFull) {
          deps.log.warn({ maxOpen: deps.maxOpen }, 'every open agent is busy: a request waits for one to close')
          warnedFull = true
        }
        await Promise.race([changed.promise, sleep(PREEMPT_AFTER_MS, undefined, { ref: false })])
      }
    },
  }
}
