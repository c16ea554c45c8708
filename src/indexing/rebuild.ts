/**
 * Atomic full rebuild (SPEC §5): the engine begins a new index beside the live one
 * (SpaceStore.beginRebuild) while searches keep reading the live index. While it builds,
 * every change (syncs, API writes) is written to both indexes; a last catch-up pass compares
 * the new index with the files just before the switch, and the engine then makes it the live
 * one at once (commit). Any failure before, including a cancel at shutdown, aborts the new
 * index and leaves the live one as it was. The embedding cache is kept apart from indexes,
 * so the rebuild re-embeds only chunks it has never seen.
 */
import { yieldToEventLoop } from '../shared/async.js'
import type { Foreground } from '../shared/foreground.js'
import type { Logger } from '../shared/logger.js'
import type { RebuildTarget, SpaceStore } from '../store/port.js'
import type { Indexer } from './indexer.js'
import type { SyncResult } from './sync-result.js'
import type { WriteTargets } from './write-targets.js'

/** Longest wait for searches in progress between two steps of finishing the new index, in ms. */
const FINISH_PAUSE_MS = 25

/** Where the test hook is called. */
export type RebuildStage = 'built' | 'swapping'

export type RebuilderDeps = {
  live: Pick<SpaceStore, 'beginRebuild'>
  indexer: Pick<Indexer, 'sync'>
  targets: Pick<WriteTargets, 'add' | 'remove' | 'writes'>
  /**
   * The settings the new index is built with (index-identity.ts), read when it is begun
   * with the vector layout of the same moment and written into it when it is complete.
   */
  identity: () => string
  /** Readers of the live index, which let go of it around the switch. */
  readers: { suspend(): Promise<void>; resume(): void }
  /** Searches in progress, which finishing the new index gives way to. */
  foreground: Pick<Foreground, 'whenIdle'>
  log: Logger
  /** Test hook awaited at each stage (failure injection, holding a rebuild open). */
  onStage?: (stage: RebuildStage) => Promise<void>
}

export function createRebuilder(deps: RebuilderDeps) {
  async function rebuild(reason: string, signal: AbortSignal): Promise<SyncResult> {
    const started = performance.now()
    const identity = deps.identity()
    let next: RebuildTarget
    try {
      next = await deps.live.beginRebuild()
    } catch (err) {
      deps.log.warn({ err, reason }, 'rebuild could not start; the previous index keeps serving')
      throw err
    }
    deps.targets.add(next)
    try {
      const result = await deps.indexer.sync({ full: true, reason, into: next, signal })
      const catchUp = await deps.indexer.sync({ full: false, reason: `${reason} (catch-up)`, into: next, signal })
      await next.setMeta('identity', identity)
      const between = async () => {
        await yieldToEventLoop()
        await deps.foreground.whenIdle(FINISH_PAUSE_MS)
      }
      await next.finish({ between, signal })
      await deps.onStage?.('built')
      signal.throwIfAborted()
      const { onStage } = deps
      await next.commit({
        signal,
        readers: deps.readers,
        detach: () => deps.targets.remove(next),
        writes: deps.targets.writes,
        onSwitch: onStage && (() => onStage('swapping')),
      })
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
      deps.targets.remove(next)
      await next.abort()
      deps.log.warn({ err, reason }, 'rebuild abandoned; the previous index keeps serving')
      throw err
    }
  }

  return { rebuild }
}

export type Rebuilder = ReturnType<typeof createRebuilder>
