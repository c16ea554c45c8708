/**
 * Atomic full rebuild (SPEC §5): a complete index is built in a temp file next to the live
 * one while searches keep reading the live index, then swapped in (store.replaceWith).
 * While it builds, every change (syncs, API writes) is written to both indexes; a last
 * catch-up pass compares the new index with the files just before the swap. Any failure
 * before the swap, including a cancel at shutdown, deletes the temp file and leaves the
 * live index as it was; a process killed meanwhile leaves a temp file that the next start
 * deletes (removeStaleRebuild). The embedding cache is a separate file, so the rebuild
 * re-embeds only chunks it has never seen.
 */
import { yieldToEventLoop } from '../shared/async.js'
import type { Foreground } from '../shared/foreground.js'
import type { Logger } from '../shared/logger.js'
import { removeIndexFiles, type IndexStore } from '../store/index-store.js'
import type { Indexer } from './indexer.js'
import type { SyncResult } from './sync-result.js'
import type { WriteTargets } from './write-targets.js'

/** Longest wait for searches in progress between two final merge steps, in ms. */
const MERGE_PAUSE_MS = 25

/** The temp file a rebuild writes, next to the live index. */
export const rebuildPath = (dbPath: string): string => `${dbPath}.rebuild`

/** Deletes what a rebuild killed mid-way left behind. Returns whether there was anything. */
export const removeStaleRebuild = (dbPath: string): boolean => removeIndexFiles(rebuildPath(dbPath))

/** Where the test hook is called. */
export type RebuildStage = 'built' | 'swapping'

export type RebuilderDeps = {
  live: Pick<IndexStore, 'dbPath' | 'replaceWith' | 'settled' | 'isSettled'>
  /** Opens a new scratch writer index at `dbPath` with the configured vector layout. */
  openIndex: (dbPath: string) => IndexStore
  indexer: Pick<Indexer, 'sync'>
  targets: Pick<WriteTargets, 'add' | 'remove'>
  /**
   * The settings the new index is built with (index-identity.ts), read when it is opened
   * with the vector layout of the same moment and written into it when it is complete.
   */
  identity: () => string
  /** Readers of the live file, closed around the swap. */
  readers: { suspend(): Promise<void>; resume(): void }
  /** Searches in progress, which the final merging gives way to. */
  foreground: Pick<Foreground, 'whenIdle'>
  log: Logger
  /** Test hook awaited at each stage (failure injection, holding a rebuild open). */
  onStage?: (stage: RebuildStage) => Promise<void>
}

export function createRebuilder(deps: RebuilderDeps) {
  /**
   * Swaps `temp` in once neither index is in the middle of a change: a big file is written
   * to an index in many transactions (staged-changes.ts), and a swap must not cut one off.
   * The check and the swap run in one synchronous step after the readers are suspended.
   */
  async function swapWhenSettled(temp: IndexStore, signal: AbortSignal): Promise<void> {
    for (;;) {
      await Promise.all([deps.live.settled(), temp.settled()])
      signal.throwIfAborted()
      await deps.readers.suspend()
      try {
        await deps.onStage?.('swapping')
        if (deps.live.isSettled() && temp.isSettled()) {
          deps.targets.remove(temp)
          deps.live.replaceWith(temp)
          return
        }
      } finally {
        deps.readers.resume()
      }
    }
  }

  async function rebuild(reason: string, signal: AbortSignal): Promise<SyncResult> {
    const started = performance.now()
    const tempPath = rebuildPath(deps.live.dbPath)
    removeIndexFiles(tempPath)
    let temp: IndexStore
    const identity = deps.identity()
    try {
      temp = deps.openIndex(tempPath)
    } catch (err) {
      // Opening can fail after creating the file (a full disk): leave nothing behind.
      removeIndexFiles(tempPath)
      deps.log.warn({ err, reason }, 'rebuild could not start; the previous index keeps serving')
      throw err
    }
    deps.targets.add(temp)
    try {
      const result = await deps.indexer.sync({ full: true, reason, into: temp, signal })
      const catchUp = await deps.indexer.sync({ full: false, reason: `${reason} (catch-up)`, into: temp, signal })
      temp.transaction((repo) => repo.setMeta('identity', identity))
      // Leaves the new index as merged as FTS5's own merging would, in small steps.
      while (temp.mergeStep()) {
        signal.throwIfAborted()
        await yieldToEventLoop()
        await deps.foreground.whenIdle(MERGE_PAUSE_MS)
      }
      await temp.flushToDisk()
      await deps.onStage?.('built')
      signal.throwIfAborted()
      await swapWhenSettled(temp, signal)
      return {
        ...result,
        indexed: result.indexed + catchUp.indexed,
        deleted: result.deleted + catchUp.deleted,
        chunks: result.chunks + catchUp.chunks,
        embedded: result.embedded + catchUp.embedded,
        embedCacheHits: result.embedCacheHits + catchUp.embedCacheHits,
        vectorsPending: catchUp.vectorsPending,
        durationMs: Math.round(performance.now() - started),
      }
    } catch (err) {
      deps.targets.remove(temp)
      temp.close()
      removeIndexFiles(tempPath)
      deps.log.warn({ err, reason }, 'rebuild abandoned; the previous index keeps serving')
      throw err
    }
  }

  return { rebuild }
}

export type Rebuilder = ReturnType<typeof createRebuilder>
