/**
 * The search log (store/port.ts SearchLog) in its own SQLite file next to the indexes, so
 * it outlives index rebuilds and swaps, and no index's writer waits for it.
 */
import type { SearchLog, SearchLogEntry } from '../search-log-port.js'
import { INSERT_COLUMNS, insertValues, recordOf, whereOf, type SearchRow } from '../search-log-rows.js'
import { openDatabase, type Db } from './database.js'
import { yieldToEventLoop } from '../../shared/async.js'

/**
 * Rows one prune statement deletes: a month of a busy deployment's searches goes in many
 * short steps (a few ms each) with turns of the event loop between, never in one.
 */
const PRUNE_STEP = 2000

const DDL = `
CREATE TABLE IF NOT EXISTS searches (
  id INTEGER PRIMARY KEY,
  request_id TEXT NOT NULL,
  at_ms INTEGER NOT NULL,
  agent TEXT NOT NULL,
  user_id TEXT,
  query TEXT NOT NULL,
  mode TEXT NOT NULL,
  results INTEGER NOT NULL,
  best_score REAL,
  abstained INTEGER NOT NULL,
  latency_ms REAL NOT NULL,
  degraded TEXT NOT NULL,
  useful INTEGER,
  note TEXT,
  feedback_at_ms INTEGER
) STRICT;
CREATE INDEX IF NOT EXISTS searches_by_agent ON searches(agent, at_ms);
CREATE INDEX IF NOT EXISTS searches_by_time ON searches(at_ms);
CREATE INDEX IF NOT EXISTS searches_by_request ON searches(request_id);
`

export function createSqliteSearchLog(opts: { dbPath: string }): SearchLog {
  const db: Db = openDatabase(opts.dbPath)
  db.exec(DDL)
  const insert = db.prepare(`INSERT INTO searches (${INSERT_COLUMNS}) VALUES (${INSERT_COLUMNS.replace(/\w+/g, '?')})`)
  const appendAll = db.transaction((entries: readonly SearchLogEntry[]) => {
    for (const e of entries) insert.run(...insertValues(e, (b) => (b ? 1 : 0)))
  })
  const feedback = db.prepare(
    `UPDATE searches SET useful = ?, note = ?, feedback_at_ms = ?
     WHERE request_id = ? AND agent = ? AND user_id IS ?`,
  )
  const agents = db.prepare<[], { agent: string }>('SELECT DISTINCT agent FROM searches')
  // `LIMIT +?`, not `LIMIT ?`: SQLite compiles a statement whose LIMIT or OFFSET is a bare
  // parameter again each time it is bound (search-repo.ts).
  const pruneOld = db.prepare('DELETE FROM searches WHERE id IN (SELECT id FROM searches WHERE at_ms < ? LIMIT +?)')
  /** The agent's newest search it keeps last (OFFSET maxPerAgent − 1), if it has that many. */
  const lastKept = db.prepare<[string, number], { id: number; at_ms: number }>(
    'SELECT id, at_ms FROM searches WHERE agent = ? ORDER BY at_ms DESC, id DESC LIMIT 1 OFFSET +?',
  )
  const pruneAgent = db.prepare(
    `DELETE FROM searches WHERE id IN (
       SELECT id FROM searches WHERE agent = ? AND (at_ms < ? OR (at_ms = ? AND id < ?)) LIMIT +?)`,
  )
  /** Runs a delete of at most PRUNE_STEP rows until it deletes fewer, yielding between: answers the rows. */
  async function inSteps(run: () => number): Promise<number> {
    let removed = 0
    for (;;) {
      const n = run()
      removed += n
      if (n < PRUNE_STEP) return removed
      await yieldToEventLoop()
    }
  }
  return {
    append: (entries) => void appendAll(entries),
    list(q) {
      const where = whereOf(q, () => '?')
      const rows = db
        .prepare<unknown[], SearchRow>(`SELECT * FROM searches ${where.sql} ORDER BY at_ms DESC, id DESC LIMIT ?`)
        .all(...where.params, q.limit)
      return rows.map(recordOf)
    },
    feedback: (f) => feedback.run(f.useful ? 1 : 0, f.note, f.atMs, f.requestId, f.agent, f.user).changes > 0,
    async prune({ beforeMs, maxPerAgent }) {
      let removed = await inSteps(() => pruneOld.run(beforeMs, PRUNE_STEP).changes)
      for (const { agent } of agents.all()) {
        const last = lastKept.get(agent, maxPerAgent - 1)
        if (last) {
          removed += await inSteps(() => pruneAgent.run(agent, last.at_ms, last.at_ms, last.id, PRUNE_STEP).changes)
        }
        await yieldToEventLoop()
      }
      return removed
    },
    close: () => void db.close(),
  }
}
