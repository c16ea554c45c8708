/** Small async helpers: keeping the event loop responsive during long synchronous work. */

/** A value, or a promise of it: what a port answers at once (SQLite) or later (PostgreSQL). */
export type MaybePromise<T> = T | Promise<T>

/** Resolves on the next turn of the event loop, after pending I/O callbacks. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/**
 * Takes turns between long jobs (the indexing passes of every agent): `await turns.next()`
 * resolves one waiting job per turn of the event loop, in arrival order. However many big
 * files are indexed at once, a turn of the loop then runs one job's slice, and requests
 * (and /health) are served between any two slices instead of after one slice of each job.
 */
export function createTurns() {
  const waiting: (() => void)[] = []
  let scheduled = false
  function release(): void {
    scheduled = false
    waiting.shift()?.()
    // Queued from inside this turn's setImmediate phase, it runs in the next turn.
    if (waiting.length > 0) schedule()
  }
  function schedule(): void {
    scheduled = true
    setImmediate(release)
  }
  return {
    next(): Promise<void> {
      return new Promise((resolve) => {
        waiting.push(resolve)
        if (!scheduled) schedule()
      })
    },
  }
}

export type Turns = ReturnType<typeof createTurns>

/**
 * A time slicer for CPU-bound loops: `await slicer.maybeYield()` yields only when the current
 * slice has run longer than `sliceMs`, so short jobs pay nothing and long ones never hold
 * the event loop for more than about one slice. `pause`, if given, is awaited at each yield
 * and at each `slicer.pause()` (background work waiting for foreground requests to finish).
 * `yieldTurn` is how it yields (default: the next turn of the event loop; `Turns.next` to
 * take turns with other jobs).
 */
export function createSlicer(sliceMs: number, pause?: () => Promise<void>, yieldTurn = yieldToEventLoop) {
  let sliceStart = performance.now()
  const waitForTurn = async () => {
    if (pause) await pause()
    sliceStart = performance.now()
  }
  return {
    async maybeYield(): Promise<void> {
      if (performance.now() - sliceStart < sliceMs) return
      await yieldTurn()
      await waitForTurn()
    },
    /** Yields now, whatever the slice, then waits for `pause` (between transactions). */
    async yield(): Promise<void> {
      await yieldTurn()
      await waitForTurn()
    },
    /** Waits for `pause` now (after awaiting something else, before more synchronous work). */
    pause: waitForTurn,
    /** Starts a new slice without waiting (after awaiting something else). */
    restart(): void {
      sliceStart = performance.now()
    },
  }
}

/**
 * Runs `fn` over `items` with at most `limit` calls in flight. When `stop()` returns true
 * no further items are started (those in flight finish).
 */
export async function forEachWithConcurrency<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
  stop: () => boolean = () => false,
): Promise<void> {
  let next = 0
  const runner = async () => {
    while (next < items.length && !stop()) await fn(items[next++] as T)
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, runner))
}

/**
 * Runs `fn` with an abort signal that fires after `ms`, and rejects with `onTimeout()` at that
 * moment even if `fn` ignores the signal, so a caller's time budget always holds.
 */
export function withTimeout<T>(
  ms: number,
  fn: (signal: AbortSignal) => Promise<T>,
  onTimeout: () => Error,
): Promise<T> {
  const controller = new AbortController()
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      controller.abort()
      reject(onTimeout())
    }, ms)
    fn(controller.signal).then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (err: unknown) => {
        clearTimeout(timer)
        reject(err instanceof Error ? err : new Error(String(err)))
      },
    )
  })
}
