/**
 * Gives memory back after a burst of big work. V8 collects garbage when JavaScript
 * allocates, so after an 8 MB file is indexed an idle service keeps its heap at the peak
 * (about +200 MB) for as long as nothing else happens. Once `minBytes` of file text have
 * been processed, a full collection runs `idleMs` after the last of them, one that compacts
 * the heap and returns the emptied pages to the system.
 *
 * Garbage left by other bursts (a flood of refused uploads, a batch of huge searches) is
 * caught by a look every 10 s: once the service is quiet (its event loop busy under 5 % of
 * the last period) and the heap has grown by 32 MiB since the last collection, one runs.
 *
 * What big work left outside this heap (the read threads that prepared the files,
 * store/sqlite/threads/read-threads.ts renew) is given back by `afterWork`, as soon as the
 * last pass of that work ends: before searches come, which would fill the threads' caches
 * again only to lose them. It runs once per `minBytes` of work, never at a periodic look.
 *
 * A collection that compacts pauses the process (178 ms after a cold index of 100k chunks,
 * against 36 ms for a plain one; BENCHMARKS.md), so it only runs after big work, once no
 * indexing pass has been running for `idleMs`, or when the service is quiet anyway.
 */
import { performance } from 'node:perf_hooks'
import v8 from 'node:v8'
import vm from 'node:vm'
import type { Logger } from './logger.js'

/** How often the heap is looked at, in ms. */
const CHECK_MS = 10_000
/** Heap growth since the last collection that is worth one once the service is quiet, in bytes. */
const HEAP_GROWTH_BYTES = 32 * 1024 * 1024
/** Event-loop utilization (share of the last period spent working) below which the service is quiet. */
const QUIET_UTILIZATION = 0.05

/**
 * Whether a collection is due at a periodic look: nothing running, the service quiet, and
 * enough garbage (heap grown since the last collection) to be worth a pause.
 */
export function isCollectionDue(s: { running: number; utilization: number; heapUsed: number; baseline: number }) {
  return s.running === 0 && s.utilization < QUIET_UTILIZATION && s.heapUsed - s.baseline >= HEAP_GROWTH_BYTES
}

/** Options of V8's exposed `gc` (its gc extension, Node 22 and 24). */
type GcOptions = { type: 'major'; execution: 'sync'; flavor: 'last-resort' }

/**
 * Runs V8's memory-reducing full collection, or null where it cannot be reached. A plain
 * `gc()` frees objects but leaves the heap's pages committed, half-empty pages included
 * (a fragmented heap of 175 MB with 46 MB live stays at 175 MB); the "last-resort" flavor is
 * the collection V8 runs near its heap limit: it compacts and returns the emptied pages to
 * the system (175 → 48 MB), at a longer pause (above).
 */
function exposeGc(): (() => void) | null {
  // The same way jest's leak detector reaches it: the flag exposes `gc` to new contexts.
  try {
    v8.setFlagsFromString('--expose-gc')
    const gc = vm.runInNewContext('gc') as unknown
    if (typeof gc !== 'function') return null
    const options: GcOptions = { type: 'major', execution: 'sync', flavor: 'last-resort' }
    return () => (gc as (o: GcOptions) => void)(options)
  } catch {
    return null
  }
}

/** Runs `fn`; what it throws is logged, so the reclaimer goes on. */
function runLogged(fn: (() => void) | undefined, log: Logger): void {
  try {
    fn?.()
  } catch (err) {
    log.warn({ err }, 'giving back memory after indexing work failed')
  }
}

/** Runs `gc` and says what it gave: heap freed, heap pages returned to the system, pause. */
function timedCollection(gc: () => void, heapUsed: () => number) {
  const mb = (bytes: number) => Math.round(bytes / 1048576)
  const started = performance.now()
  const before = heapUsed()
  const committed = process.memoryUsage().heapTotal
  gc()
  const after = heapUsed()
  return {
    heapUsed: after,
    logged: {
      freedMb: mb(before - after),
      // After big work, most of what the collection gives back: V8's own collections had
      // often freed the objects already, and kept their pages.
      returnedMb: mb(committed - process.memoryUsage().heapTotal),
      durationMs: Math.round(performance.now() - started),
    },
  }
}

/** Event-loop utilization (share of the time spent working) since the previous call. */
function utilizationSinceLastCall(): () => number {
  let last = performance.eventLoopUtilization()
  return () => {
    const now = performance.eventLoopUtilization()
    const since = performance.eventLoopUtilization(now, last)
    last = now
    return since.utilization
  }
}

export function createMemoryReclaimer(opts: {
  /** Bytes of work after which a collection is due (default 4 MiB). */
  minBytes?: number
  /** Quiet time after the last work before it runs, in ms (default 5000). */
  idleMs?: number
  /** The collection (default: V8's full garbage collection; tests count calls). */
  collect?: () => void
  /** Heap in use, in bytes, and event-loop utilization since the last look (tests pin them). */
  heapUsed?: () => number
  utilization?: () => number
  /** Runs when the last pass of big work ends (the engine's releaseMemory). */
  afterWork?: () => void
  log: Logger
}) {
  const minBytes = opts.minBytes ?? 4 * 1024 * 1024
  const idleMs = opts.idleMs ?? 5000
  let gc: (() => void) | null | undefined = opts.collect
  let pending = 0
  /** Work since afterWork last ran, in bytes. */
  let unreleased = 0
  let running = 0
  let timer: NodeJS.Timeout | null = null
  let looking: NodeJS.Timeout | null = null
  const heapUsed = opts.heapUsed ?? (() => process.memoryUsage().heapUsed)
  const utilization = opts.utilization ?? utilizationSinceLastCall()
  /** Heap in use after the last collection (or at start). */
  let baseline = heapUsed()

  function schedule(): void {
    if (timer) clearTimeout(timer)
    timer = setTimeout(collect, idleMs)
    timer.unref()
  }

  function collect(): void {
    timer = null
    if (running > 0) return
    gc ??= exposeGc()
    if (!gc) return
    const done = timedCollection(gc, heapUsed)
    baseline = done.heapUsed
    opts.log.debug({ ...done.logged, workBytes: pending }, 'memory reclaimed')
    pending = 0
  }

  function look(): void {
    if (timer) return
    if (isCollectionDue({ running, utilization: utilization(), heapUsed: heapUsed(), baseline })) collect()
  }

  return {
    /** Reports `bytes` of transient work (file text read and indexed). */
    worked(bytes: number): void {
      pending += bytes
      unreleased += bytes
      if (pending >= minBytes) schedule()
    },
    /** Marks work in progress (an indexing pass); call the returned function when it ends. */
    hold(): () => void {
      running++
      let released = false
      return () => {
        if (released) return
        released = true
        running--
        if (running > 0) return
        if (unreleased >= minBytes) {
          unreleased = 0
          runLogged(opts.afterWork, opts.log)
        }
        if (pending >= minBytes) schedule()
      }
    },
    /** Starts the periodic look at the heap. */
    start(): void {
      looking ??= setInterval(look, CHECK_MS)
      looking.unref()
    },
    close(): void {
      if (timer) clearTimeout(timer)
      if (looking) clearInterval(looking)
      timer = null
      looking = null
    },
  }
}

export type MemoryReclaimer = ReturnType<typeof createMemoryReclaimer>
