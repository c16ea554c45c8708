/**
 * Keeps the search log (SPEC §12) without slowing or failing a search: a search hands its
 * entry over and returns; entries are written in batches every FLUSH_MS (or BATCH at
 * once). The buffer is bounded: past MAX_BUFFERED entries waiting (the engine slow or
 * away), new ones are dropped and counted. A failed write is counted and logged, and its
 * entries are lost, never retried into an unbounded backlog. Old entries go by age and by
 * count per agent (prune, at start and every PRUNE_MS).
 */
import type { Logger } from '../shared/logger.js'
import type { SearchLog, SearchLogEntry, SearchLogQuery, SearchLogRecord } from '../store/search-log-port.js'

/** How long an entry waits for its batch, in ms. */
const FLUSH_MS = 500
/** Entries written in one batch (a full batch is written at once). */
const BATCH = 200
/** Entries that may wait for the engine; more are dropped. */
export const MAX_BUFFERED = 10_000
/** How often old entries are pruned, in ms. */
const PRUNE_MS = 3_600_000
const DAY_MS = 86_400_000

export type SearchLogSettings = { enabled: boolean; retentionDays: number; maxPerAgent: number }

export type SearchRecorderDeps = {
  store: SearchLog
  settings: Pick<SearchLogSettings, 'retentionDays' | 'maxPerAgent'>
  log: Logger
  /** Told how each entry ended: written, dropped (buffer full) or failed (the write failed). */
  onOutcome?: (outcome: 'written' | 'dropped' | 'failed', entries: number) => void
  now?: () => number
  maxBuffered?: number
}

export function createSearchRecorder(deps: SearchRecorderDeps) {
  const now = deps.now ?? Date.now
  const maxBuffered = deps.maxBuffered ?? MAX_BUFFERED
  let buffer: SearchLogEntry[] = []
  let timer: NodeJS.Timeout | null = null
  let writing: Promise<void> = Promise.resolve()
  let warnedFull = false
  let closed = false

  function flush(): Promise<void> {
    if (timer) clearTimeout(timer)
    timer = null
    const batch = buffer
    buffer = []
    // One write at a time, in order: each after the one before settled.
    writing = writing.then(async () => {
      if (batch.length === 0) return
      try {
        await deps.store.append(batch)
        deps.onOutcome?.('written', batch.length)
      } catch (err) {
        deps.onOutcome?.('failed', batch.length)
        deps.log.warn(
          { err, entries: batch.length },
          'could not write to the search log; those searches are not logged',
        )
      }
    })
    return writing
  }

  async function prune(): Promise<void> {
    try {
      const removed = await deps.store.prune({
        beforeMs: now() - deps.settings.retentionDays * DAY_MS,
        maxPerAgent: deps.settings.maxPerAgent,
      })
      if (removed > 0) deps.log.info({ removed }, 'pruned the search log')
    } catch (err) {
      deps.log.warn({ err }, 'could not prune the search log')
    }
  }
  void prune()
  const pruning = setInterval(() => void prune(), PRUNE_MS)
  pruning.unref()

  return {
    /** Takes a search's entry; never throws, never waits. */
    record(entry: SearchLogEntry): void {
      if (closed) return
      if (buffer.length >= maxBuffered) {
        deps.onOutcome?.('dropped', 1)
        if (!warnedFull) deps.log.warn({ maxBuffered }, 'the search log cannot keep up: searches go unlogged')
        warnedFull = true
        return
      }
      warnedFull = false
      buffer.push(entry)
      if (buffer.length >= BATCH) void flush()
      else if (!timer) {
        timer = setTimeout(() => void flush(), FLUSH_MS)
        timer.unref()
      }
    },
    /** The logged searches (those still waiting are written first, so a search just made is listed). */
    async list(q: SearchLogQuery): Promise<SearchLogRecord[]> {
      await flush()
      return deps.store.list(q)
    },
    async feedback(f: Parameters<SearchLog['feedback']>[0]): Promise<boolean> {
      await flush()
      return deps.store.feedback(f)
    },
    prune,
    async close(): Promise<void> {
      closed = true
      clearInterval(pruning)
      await flush()
      await deps.store.close()
    },
  }
}

export type SearchRecorder = ReturnType<typeof createSearchRecorder>
