/**
 * Lets background work give way to foreground requests. Searches mark themselves in
 * progress (enter/exit); a background loop (a sync or rebuild pass) that has used its time
 * slice waits until no search is in progress, for at most `maxWaitMs`, so a heavy search
 * load slows a rebuild down instead of the rebuild slowing searches down. `quietFor` tells
 * a sync whether searches have stopped coming, so it may hold the event loop longer.
 */
/**
 * How long after a search the service still counts searches as coming, in ms: they arrive in
 * bursts (an agent's turn). Within it, syncs keep their transactions short (pass-pace.ts)
 * and prepare files in slices on the main thread or one at a time on a worker
 * (store/sqlite/threads/read-threads.ts): a preparation on a worker cannot pause for a search, and with searches
 * back to back worker preparations put the search p99 during a rebuild at 2.2–2.4 times
 * the idle p99, against 1.5–1.7 times on the main thread.
 */
export const SEARCHES_QUIET_MS = 250
/**
 * How long after two searches overlapped the service still takes searches to come together,
 * in ms: SQLite then hands every search to its read threads rather than run one alone on the
 * main thread (store/sqlite/threads/main-thread-reads.ts). A second costs a lone search its
 * round trip for that long, and spares a busy service its threads sitting idle.
 */
export const SEARCHES_OVERLAP_MS = 1000

export function createForeground(now: () => number = () => performance.now()) {
  let active = 0
  /** When a search last began or ended (ms, `now`'s clock). */
  let lastSeenAt = -Infinity
  /** When a search last began while another was in progress (ms, `now`'s clock). */
  let overlapAt = -Infinity
  let waiters: (() => void)[] = []

  /**
   * Resumes waiting background work on the next turn of the event loop, not in this one:
   * a search ends before its response is serialised and written, and that should go first.
   */
  function release(): void {
    const w = waiters
    waiters = []
    if (w.length > 0) setImmediate(() => w.forEach((resolve) => resolve()))
  }

  return {
    /** Marks a foreground request in progress; call the returned function when it ends. */
    enter(): () => void {
      active++
      lastSeenAt = now()
      if (active > 1) overlapAt = lastSeenAt
      let done = false
      return () => {
        if (done) return
        done = true
        active--
        lastSeenAt = now()
        if (active === 0) release()
      }
    },
    /** Resolves when no foreground request is in progress, or after `maxWaitMs`. */
    whenIdle(maxWaitMs: number): Promise<void> {
      if (active === 0) return Promise.resolve()
      return new Promise((resolve) => {
        const timer = setTimeout(resolve, maxWaitMs)
        waiters.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    },
    active: (): number => active,
    /** Whether no search is in progress and none began or ended in the last `ms`. */
    quietFor: (ms: number): boolean => active === 0 && now() - lastSeenAt >= ms,
    /**
     * Whether searches come together: another is in progress besides one, or two were in the
     * last `ms`. Requests still unread in the sockets are not in progress yet, so under load a
     * search can find itself alone between two others; overlaps a moment ago say they are coming.
     */
    together: (ms: number): boolean => active > 1 || now() - overlapAt < ms,
  }
}

export type Foreground = ReturnType<typeof createForeground>
