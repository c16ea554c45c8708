/**
 * Gives memory back after a burst of big work. V8 collects garbage when JavaScript
 * allocates, so after an 8 MB file is indexed an idle service keeps its heap at the peak
 * (about +200 MB) for as long as nothing else happens. Once `minBytes` of file text have
 * been processed, a full collection runs `idleMs` after the last of them, and V8 then
 * returns the emptied pages to the system.
 *
 * A full collection pauses the process (about 20–60 ms for a heap of a few hundred MB), so
 * it only runs after big work, once no indexing pass has been running for `idleMs`.
 */
import v8 from 'node:v8'
import vm from 'node:vm'
import type { Logger } from './logger.js'

/** Runs V8's full garbage collection, or null where it cannot be reached. */
function exposeGc(): (() => void) | null {
  // The same way jest's leak detector reaches it: the flag exposes `gc` to new contexts.
  try {
    v8.setFlagsFromString('--expose-gc')
    const gc = vm.runInNewContext('gc') as unknown
    return typeof gc === 'function' ? (gc as () => void) : null
  } catch {
    return null
  }
}

export function createMemoryReclaimer(opts: {
  /** Bytes of work after which a collection is due (default 4 MiB). */
  minBytes?: number
  /** Quiet time after the last work before it runs, in ms (default 5000). */
  idleMs?: number
  /** The collection (default: V8's full garbage collection; tests count calls). */
  collect?: () => void
  log: Logger
}) {
  const minBytes = opts.minBytes ?? 4 * 1024 * 1024
  const idleMs = opts.idleMs ?? 5000
  let gc: (() => void) | null | undefined = opts.collect
  let pending = 0
  let running = 0
  let timer: NodeJS.Timeout | null = null

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
    const started = performance.now()
    const before = process.memoryUsage().heapUsed
    gc()
    const freedMb = Math.round((before - process.memoryUsage().heapUsed) / 1048576)
    opts.log.debug(
      { freedMb, durationMs: Math.round(performance.now() - started), workBytes: pending },
      'memory reclaimed',
    )
    pending = 0
  }

  return {
    /** Reports `bytes` of transient work (file text read and indexed). */
    worked(bytes: number): void {
      pending += bytes
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
        if (running === 0 && pending >= minBytes) schedule()
      }
    },
    close(): void {
      if (timer) clearTimeout(timer)
      timer = null
    },
  }
}

export type MemoryReclaimer = ReturnType<typeof createMemoryReclaimer>
