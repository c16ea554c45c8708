/**
 * How a sync pass paces its work on the main thread: how long it works between yields, how
 * it waits for searches in progress, and how much it writes per batch and per transaction
 * (more while no search comes).
 */
import { createSlicer, type Turns } from '../shared/async.js'
import { SEARCHES_QUIET_MS, type Foreground } from '../shared/foreground.js'
import type { SpaceWriter, StepOptions } from '../store/port.js'

/**
 * Chunks of prepared files a pass collects before it embeds and writes them, unless the
 * store asks for another number (SpaceWriter.batchChunks, quietBatchChunks). The store
 * splits what it writes into short transactions however big one file is
 * (staged-changes.ts).
 */
const BATCH_CHUNKS = 25
/**
 * The same while no search has come for SEARCHES_QUIET_MS: about as many chunks as a store's quiet
 * transaction holds (StepOptions.quiet; 32,000 terms in SQLite), so files are not cut into
 * transactions smaller than the store would make.
 */
const QUIET_BATCH_CHUNKS = 160
/**
 * Longest stretch of CPU work (chunking, analysis, writing) between yields, in ms: short
 * for background passes, longer for a write's own pass. At each yield both wait for
 * searches in progress (up to BACKGROUND_PAUSE_MS): a write small enough to finish within
 * one slice never waits, and one agent's huge write gives way to every agent's searches.
 */
const BACKGROUND_SLICE_MS = 1
const FOREGROUND_SLICE_MS = 8
const BACKGROUND_PAUSE_MS = 25

export function createPassPace(deps: {
  foreground: Pick<Foreground, 'whenIdle' | 'quietFor'>
  turns: Pick<Turns, 'next'>
  /** A pass nobody waits for (a sync, a rebuild), rather than a write's own or a waited one. */
  background: boolean
  /** A full pass, which asks its indexes to compact when it ends (StepOptions.compactsAfter). */
  compactsAfter: boolean
  store: Pick<SpaceWriter, 'batchChunks' | 'quietBatchChunks'>
  signal: AbortSignal | undefined
}) {
  const { foreground, background } = deps
  const slicer = createSlicer(
    background ? BACKGROUND_SLICE_MS : FOREGROUND_SLICE_MS,
    () => foreground.whenIdle(BACKGROUND_PAUSE_MS),
    deps.turns.next,
  )
  const quiet = () => foreground.quietFor(SEARCHES_QUIET_MS)
  // Between two of the store's transactions: a background pass yields and lets searches in
  // progress finish first; a write's own pass yields once its slice is used up.
  const steps: StepOptions = {
    between: () => (background ? slicer.yield() : slicer.maybeYield()),
    signal: deps.signal,
    quiet,
    compactsAfter: deps.compactsAfter,
  }
  return {
    slicer,
    steps,
    /** Chunks to collect before the next write. */
    batchLimit: (): number =>
      quiet()
        ? (deps.store.quietBatchChunks ?? deps.store.batchChunks ?? QUIET_BATCH_CHUNKS)
        : (deps.store.batchChunks ?? BATCH_CHUNKS),
  }
}
