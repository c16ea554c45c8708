/**
 * The live index's upkeep after a sync: the store reorganises what syncs wrote (SQLite
 * merges its FTS5 segments, fts-compaction.ts, and builds its impact lists; PostgreSQL
 * builds the impact lists a first index paused, list-resume.ts) after the sync answered,
 * never inside it. Merging a big index takes seconds (a million chunks; 0.4 s of a
 * 10,001-chunk cold start), which no first sync, `/ready` or write should wait for, and a
 * write's own pass never compacts. Background work: its steps give way to searches, to
 * index passes and to writes, and stop() ends it between two.
 */
import type { Foreground } from '../shared/foreground.js'
import type { Logger } from '../shared/logger.js'
import type { Turns } from '../shared/async.js'
import { createPassPace } from './pass-pace.js'
import type { IndexTarget } from './sync-pass.js'

/**
 * Longest wait for index passes and writes in progress before the next step, in ms. A
 * step holds the event loop for 4 ms or more, and a pass awaits the file system once per
 * file it stats or reads: run in turns with it, every step cost a pass one await (a re-scan
 * of 6,001 unchanged files took 17 s behind the impact lists of a 300,001-chunk index,
 * against 0.5 s alone). Bounded so that passes back to back still leave a step every 100 ms.
 */
const WAIT_FOR_INDEXING_MS = 100

export type IndexUpkeepDeps = {
  live: Pick<IndexTarget, 'compact' | 'batchChunks'>
  /** Searches in progress. */
  foreground: Pick<Foreground, 'whenIdle' | 'quietFor'>
  /** Index passes and writes in progress in every space. */
  indexing: Pick<Foreground, 'whenIdle'>
  turns: Pick<Turns, 'next'>
  log: Logger
}

export function createIndexUpkeep(deps: IndexUpkeepDeps) {
  /** The upkeep running now, one at a time. */
  let running: Promise<void> | null = null
  const stopping = new AbortController()
  const foreground = {
    whenIdle: async (ms: number) => {
      await deps.foreground.whenIdle(ms)
      await deps.indexing.whenIdle(WAIT_FOR_INDEXING_MS)
    },
    quietFor: deps.foreground.quietFor,
  }

  return {
    /** Starts the upkeep unless it runs already (or the index needs none). */
    later: (): void => {
      if (running || stopping.signal.aborted || !deps.live.compact) return
      const { steps } = createPassPace({
        foreground,
        turns: deps.turns,
        background: true,
        compactsAfter: false,
        store: deps.live,
        signal: stopping.signal,
      })
      running = (async () => {
        // The sync's caller has its answer first: nothing is merged in the turn it resolves in.
        await steps.between()
        await deps.live.compact?.(steps)
      })()
        .catch((err: unknown) => {
          if (!stopping.signal.aborted) deps.log.warn({ err }, 'compacting the index failed; a later sync tries again')
        })
        .finally(() => {
          running = null
        })
    },
    /** Ends the upkeep in progress between two of its steps (the space closes). */
    stop: async (): Promise<void> => {
      stopping.abort()
      await running
    },
    /** Resolves once no upkeep runs (tests). */
    done: async (): Promise<void> => {
      await running
    },
  }
}
