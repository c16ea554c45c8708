/**
 * One space's index as a SQLite file (the SpaceStore of store/port.ts). A rebuild writes a
 * complete index into a temp file next to the live one (`<index>.rebuild`) while searches
 * read the live one; committing renames it over the live file (IndexStore.replaceWith),
 * the rename being the commit point. Aborting, or a process killed meanwhile, leaves a temp
 * file that is deleted (at the next open for a killed process).
 */
import type { IndexStore } from './index-store.js'
import { removeIndexFiles } from './open-index.js'
import type { CorpusStats, RebuildTarget, SpaceKey, SpaceStore, SpaceWriter, StepOptions } from '../port.js'
import { createReadSequence } from './read-sequence.js'

/** The temp file a rebuild writes, next to the live index. */
export const rebuildPath = (dbPath: string): string => `${dbPath}.rebuild`

/** Deletes what a rebuild killed mid-way left behind. Returns whether there was anything. */
export const removeStaleRebuild = (dbPath: string): boolean => removeIndexFiles(rebuildPath(dbPath))

/** A SQLite space: the port, and the file the search workers open. */
export type SqliteSpace = SpaceStore & {
  readonly dbPath: string
  /** The chunk count, cached until the index changes (where a small index is searched). */
  corpusStats(): CorpusStats
}

/** The writer methods of a store, bound to it. */
function writerOf(store: IndexStore): SpaceWriter {
  return {
    applyChanges: (changes, steps) => store.applyChanges(changes, steps),
    compact: (steps) => store.compact(steps),
    putVectors: (items) => store.putVectors(items),
    setMeta: (key, value) => store.setMeta(key, value),
    storesVectors: () => store.storesVectors(),
    listFiles: () => store.listFiles(),
    getFile: (path) => store.getFile(path),
    pendingVectors: (limit) => store.pendingVectors(limit),
    pendingVectorCount: () => store.pendingVectorCount(),
  }
}

export type SqliteSpaceOptions = {
  key: SpaceKey
  /** The live index, open. */
  store: IndexStore
  /** Opens a scratch writer index at `dbPath` with the configured vector layout. */
  openScratch: (dbPath: string) => IndexStore
  /** The index file did not exist before it was opened. */
  created: boolean
  /** A temp file of an interrupted rebuild was deleted at open. */
  staleRebuild: boolean
}

export function createSqliteSpace(opts: SqliteSpaceOptions): SqliteSpace {
  const { store } = opts

  function beginRebuild(): RebuildTarget {
    const tempPath = rebuildPath(store.dbPath)
    removeIndexFiles(tempPath)
    let temp: IndexStore
    try {
      temp = opts.openScratch(tempPath)
    } catch (err) {
      // Opening can fail after creating the file (a full disk): leave nothing behind.
      removeIndexFiles(tempPath)
      throw err
    }
    let done = false
    return {
      ...writerOf(temp),
      async finish(steps: StepOptions): Promise<void> {
        // Leaves the new index as merged as FTS5's own merging would, in small steps.
        while (temp.mergeStep()) {
          steps.signal?.throwIfAborted()
          await steps.between()
        }
        await temp.flushToDisk()
      },
      /**
       * Swaps the new index in once neither index is in the middle of a change: a big file
       * is written in many transactions (staged-changes.ts), a change goes to both indexes
       * one after the other (`writes`), and a swap must not cut either off. The check and
       * the swap run in one synchronous step after the readers let go.
       */
      async commit({ signal, readers, detach, writes, onSwitch }): Promise<void> {
        for (;;) {
          await Promise.all([store.settled(), temp.settled(), writes.whenIdle()])
          signal.throwIfAborted()
          await readers.suspend()
          try {
            await onSwitch?.()
            if (writes.idle() && store.isSettled() && temp.isSettled()) {
              detach()
              done = true
              store.replaceWith(temp)
              return
            }
          } finally {
            readers.resume()
          }
        }
      },
      abort(): void {
        if (done) return
        done = true
        temp.close()
        removeIndexFiles(tempPath)
      },
    }
  }

  let sequence: ReturnType<typeof createReadSequence> | null = null
  return {
    ...writerOf(store),
    key: opts.key,
    dbPath: store.dbPath,
    fresh: opts.created || store.recreated,
    repaired: { recreated: store.recreated, staleRebuild: opts.staleRebuild },
    recovered: store.recovered,
    isOpen: () => store.isOpen(),
    findEntries: (q) => store.findEntries(q),
    getMeta: (key) => store.getMeta(key),
    counts: () => store.counts(),
    // Numbers continue from the highest one the index holds.
    readSequence: () => (sequence ??= createReadSequence(store.maxReadSeq())),
    beginRebuild,
    // One process per data dir (data-dir-lock.ts): nothing to share with.
    withPathLock: (_path, fn) => fn(),
    claimSync: () => async () => undefined,
    candidates: (q) => store.candidates(q),
    newestMatches: (q) => store.newestMatches(q),
    corpusStats: () => store.corpusStats(),
    keywordStats: (terms) => store.keywordStats(terms),
    nearest: (vector, k, filters, shards) => store.nearest(vector, k, filters, shards),
    chunkTexts: (ids) => store.chunkTexts(ids),
    close: () => store.close(),
  }
}
