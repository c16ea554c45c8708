/**
 * How the lists' background upkeep (impact-lists.ts, rare-lists.ts) runs its steps: each a
 * write transaction of a few ms, with a yield once SLICE_MS of them ran.
 */
import type { StepOptions } from '../port.js'

/** Runs `fn` in one write transaction. */
export type Write = (fn: () => void) => void

/**
 * Steps' work between two yields, in ms: a yield lets searches in progress finish first and
 * costs about a ms on a busy machine itself, and a build of a million chunks takes some
 * 100,000 steps (most vocabulary terms are rare and cost FTS5 nothing to count).
 */
export const SLICE_MS = 4

/** Awaited after each step: yields (StepOptions.between) once SLICE_MS of steps ran. */
export function pacer(steps: StepOptions): () => Promise<void> {
  let since = performance.now()
  return async () => {
    steps.signal?.throwIfAborted()
    if (performance.now() - since < SLICE_MS) return
    await steps.between()
    steps.signal?.throwIfAborted()
    since = performance.now()
  }
}
