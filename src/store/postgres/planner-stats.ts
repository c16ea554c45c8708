/**
 * Keeps the planner's statistics of the chunk and term tables current after bulk writes.
 * Autovacuum analyses a table within a minute or so of a tenth of it changing; until then a
 * freshly filled table looks empty to the planner, which scans every chunk of the index
 * instead of the GIN index (a keyword search on 10,000 chunks took 190 ms instead of 5 ms
 * right after a cold index). So this process runs ANALYZE itself, in the background, once
 * the chunk rows it inserted since its last one reach a share of the rows then known
 * (what this process inserted).
 */
import type { Logger } from '../../shared/logger.js'
import type { Pool, Tables } from './database.js'

/** Chunk rows inserted before the first ANALYZE, and at least between two. */
export const ANALYZE_MIN_ROWS = 1000
/**
 * Then again once the rows inserted reach this share of the rows counted at the last one:
 * each time the table doubled. The planner needs the rough size and term spread, not
 * exact counts; analysing more often cost a quarter of a cold index's database time.
 */
export const ANALYZE_SHARE = 1

export function createPlannerStats(deps: { pool: Pick<Pool, 'query'>; t: Tables; log: Logger }) {
  const { pool, t, log } = deps
  /** Chunk rows this process inserted, in all, when its last ANALYZE began, and since. */
  let known = 0
  let since = 0
  let running: Promise<void> | null = null

  return {
    /** Counts chunk rows inserted; starts an ANALYZE when they are enough and none runs. */
    inserted(rows: number): void {
      since += rows
      if (running || since < Math.max(ANALYZE_MIN_ROWS, known * ANALYZE_SHARE)) return
      known += since
      since = 0
      running = pool
        .query(`ANALYZE ${t.chunks}, ${t.terms}`)
        .then(() => undefined)
        .catch((err: unknown) => log.warn({ err }, 'could not ANALYZE the chunk tables; autovacuum will'))
        .finally(() => {
          running = null
        })
    },
    /** Resolves when no ANALYZE runs (tests, close). */
    settled: async (): Promise<void> => {
      await running
    },
  }
}

export type PlannerStats = ReturnType<typeof createPlannerStats>
