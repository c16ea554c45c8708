/**
 * Keeps the live FTS5 index in few segments. FTS5 seeks every query term in every segment,
 * and bm25() does it again for each term's document count: the first sync of the SciFact
 * workspace (7,477 chunks) left 10 segments, and its long queries' FTS5 query took 1.1–1.5 ms
 * there against 0.7–0.9 ms with the index in one (BENCHMARKS.md, issue 35). Rankings do not
 * depend on how the index is split. FTS5's own automerge only merges segments of one level,
 * so after a sync pass this merges every segment into one, in small steps, once the chunks
 * written since the last such merge are at least half the index: the merging then rewrites
 * at most about twice what was written, as a growing array copies its items. The count of
 * chunks written since is kept in the index itself, so a service restarted before its merge
 * still merges, and an index swapped in by a rebuild brings its own count.
 *
 * While such a merge is due, whatever FTS5's automerge merges is merged again by it, so FTS5
 * then merges a level at AUTOMERGE_WHILE_DUE segments instead of its default AUTOMERGE.
 */
import type { StepOptions } from '../port.js'

/** FTS5's automerge by default: a level's segments are merged once it holds 4. */
export const AUTOMERGE = 4
/**
 * FTS5's automerge while a full merge is due (a first sync, a pass that rewrote half the
 * index): each posting is rewritten at about log8 instead of log4 of the segment count
 * before the full merge rewrites it once more, in steps bounded per commit as at 4. Writing
 * a first sync's 10,001 chunks: 11 % less time in transactions of 32,000 terms, 6 % in
 * transactions of 4,000 (BENCHMARKS.md, issue 35). Searches meanwhile seek their terms in up
 * to twice as many segments, until the merge.
 */
export const AUTOMERGE_WHILE_DUE = 8

/** Whether the index is due for a full merge after `written` of its `rows` chunks were written. */
export function isMergeDue(written: number, rows: number): boolean {
  return written > 0 && 2 * written >= rows
}

export type FtsCompactionDeps = {
  /** One step of merging every segment into one; false once there is nothing left to merge. */
  mergeAllStep: () => boolean
  /** Chunks written since the last full merge, as stored with the index (0 when never counted). */
  written: () => number
  /** Stores that count. */
  setWritten: (chunks: number) => void
  /** The index's chunk count. */
  rows: () => number
  /**
   * Sets FTS5's automerge (segments of a level it merges as commits add more); default never.
   * Called when the value wanted changes, and at the first write of the process.
   */
  setAutomerge?: (segments: number) => void
  /**
   * Whether the volume has room for the merge, which writes a copy of what it merges before
   * freeing it; default always.
   */
  hasRoom?: () => boolean
}

export function createFtsCompaction(deps: FtsCompactionDeps) {
  /**
   * The chunk count when last counted: a pass that wrote less than half of it (a flush into
   * a big index) does not count again. Deletions since only make a merge come later.
   */
  let rows = 0
  /**
   * The automerge last set (undefined: none yet in this process). An index a rebuild swaps in
   * starts at FTS5's default and keeps it until the value wanted here changes.
   */
  let automerge: number | undefined
  const setAutomerge = (segments: number): void => {
    if (segments === automerge) return
    deps.setAutomerge?.(segments)
    automerge = segments
  }
  /** Whether a full merge is due after `written` chunks, counting the index only when it may be. */
  function due(written: number): boolean {
    if (written === 0 || 2 * written < rows) return false
    rows = deps.rows()
    return isMergeDue(written, rows)
  }
  return {
    /** Counts chunks written to the index, and sets FTS5's automerge for the writes to come. */
    wrote(chunks: number): void {
      if (chunks <= 0) return
      const written = deps.written() + chunks
      deps.setWritten(written)
      if (deps.setAutomerge) setAutomerge(due(written) ? AUTOMERGE_WHILE_DUE : AUTOMERGE)
    },
    /**
     * Merges the index into one segment when due, yielding between steps. A step that
     * throws leaves the count as it was, so a later pass merges.
     */
    async compact(steps: StepOptions): Promise<void> {
      if (!due(deps.written()) || deps.hasRoom?.() === false) return
      while (deps.mergeAllStep()) {
        steps.signal?.throwIfAborted()
        await steps.between()
      }
      // Chunks written during the merge's steps were merged with the rest.
      deps.setWritten(0)
      setAutomerge(AUTOMERGE)
    },
  }
}

export type FtsCompaction = ReturnType<typeof createFtsCompaction>
