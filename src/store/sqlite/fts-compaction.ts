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
 */
import type { StepOptions } from '../port.js'

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
  /** The index's chunk count (a COUNT over the chunks: milliseconds for a big index). */
  rows: () => number
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
  return {
    /** Counts chunks written to the index. */
    wrote(chunks: number): void {
      if (chunks > 0) deps.setWritten(deps.written() + chunks)
    },
    /**
     * Merges the index into one segment when due, yielding between steps. A step that
     * throws leaves the count as it was, so a later pass merges.
     */
    async compact(steps: StepOptions): Promise<void> {
      const written = deps.written()
      if (written === 0 || 2 * written < rows) return
      rows = deps.rows()
      if (!isMergeDue(written, rows) || deps.hasRoom?.() === false) return
      while (deps.mergeAllStep()) {
        steps.signal?.throwIfAborted()
        await steps.between()
      }
      // Chunks written during the merge's steps were merged with the rest.
      deps.setWritten(0)
    },
  }
}

export type FtsCompaction = ReturnType<typeof createFtsCompaction>
