/**
 * Counts operations in progress so shutdown can wait for them (writes that must reach the
 * disk and the index before the process exits). After close(), new operations are refused.
 */
import { appError } from './errors.js'

export function createInFlight() {
  let active = 0
  let closed = false
  let waiters: (() => void)[] = []

  return {
    /** Runs `fn` as a tracked operation; throws SHUTTING_DOWN once closing started. */
    async run<T>(fn: () => Promise<T>): Promise<T> {
      if (closed) throw appError('SHUTTING_DOWN')
      active++
      try {
        return await fn()
      } finally {
        active--
        if (active === 0) {
          const w = waiters
          waiters = []
          w.forEach((resolve) => resolve())
        }
      }
    },
    /** Refuses new operations and resolves when the running ones have finished. */
    close(): Promise<void> {
      closed = true
      if (active === 0) return Promise.resolve()
      return new Promise((resolve) => waiters.push(resolve))
    },
  }
}

export type InFlight = ReturnType<typeof createInFlight>
