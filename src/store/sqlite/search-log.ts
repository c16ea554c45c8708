/**
 * The search log (store/port.ts SearchLog) in its own SQLite file next to the indexes, so
 * it outlives index rebuilds and swaps, and no index's writer waits for it.
 */
import type { SearchLog, SearchLogEntry } from '../port.js'
import { INSERT_COLUMNS, insertValues, recordOf, whereOf, type SearchRow } from '../search-log-rows.js'
import { openDatabase, type Db } from './database.js'

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
  const pruneOld = db.prepare('DELETE FROM searches WHERE at_ms < ?')
  const pruneBeyond = db.prepare(
    'DELETE FROM searches WHERE id IN (SELECT id FROM searches WHERE agent = ? ORDER BY at_ms DESC, id DESC LIMIT -1 OFFSET ?)',
  )
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
    prune: ({ beforeMs, maxPerAgent }) =>
      db.transaction(() => {
        let removed = pruneOld.run(beforeMs).changes
        for (const { agent } of agents.all()) removed += pruneBeyond.run(agent, maxPerAgent).changes
        return removed
      })(),
    close: () => void db.close(),
  }
}
