/**
 * The indexes a change must reach: always the live one, and a rebuild's new index while the
 * rebuild runs, so writes acknowledged during a rebuild are in the index that replaces the
 * live one.
 */
import type { IndexTarget } from './sync-pass.js'

export function createWriteTargets(live: IndexTarget) {
  let extra: IndexTarget | null = null
  return {
    all: (): readonly IndexTarget[] => (extra ? [live, extra] : [live]),
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
