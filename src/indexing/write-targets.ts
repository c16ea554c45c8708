/**
 * The indexes a change must reach: always the live one, and a rebuild's new index while the
 * rebuild runs, so writes acknowledged during a rebuild are in the index that replaces the
 * live one. A write takes the set once and holds it (PassTargets.hold) until it reached each
 * of them; the rebuild swaps its index in only while none is held (RebuildCommit.writes).
 */
import { createForeground } from '../shared/foreground.js'
import type { PassTargets } from './pass-batch.js'
import type { IndexTarget } from './sync-pass.js'

/** Longest wait for writes in flight before a swap checks again, in ms. */
const WRITES_WAIT_MS = 100

const noRelease = () => undefined

/** A rebuild pass's one index, which nothing else swaps or closes while the pass writes. */
export const onlyInto = (into: IndexTarget): PassTargets => ({ all: () => [into], hold: () => noRelease })

export function createWriteTargets(live: IndexTarget) {
  let extra: IndexTarget | null = null
  const inFlight = createForeground()
  return {
    all: (): readonly IndexTarget[] => (extra ? [live, extra] : [live]),
    hold: (): (() => void) => inFlight.enter(),
    /** Writes in flight, which a rebuild's swap waits for (RebuildCommit.writes). */
    writes: {
      idle: (): boolean => inFlight.active() === 0,
      whenIdle: (): Promise<void> => inFlight.whenIdle(WRITES_WAIT_MS),
    },
    /** Adds a rebuild's index (one at a time). */
    add(target: IndexTarget): void {
      if (extra) throw new Error('a rebuild index is already a write target')
      extra = target
    },
    remove(target: IndexTarget): void {
      if (extra === target) extra = null
    },
  }
}

export type WriteTargets = ReturnType<typeof createWriteTargets>
