/**
 * The search log (store/port.ts SearchLog) as one table of the schema, shared by every
 * replica: a search answered by any of them is listed by all.
 */
import type { SearchLog } from '../port.js'
import { INSERT_COLUMNS, insertValues, recordOf, whereOf } from '../search-log-rows.js'
import type { Pool, Tables } from './database.js'

export function createPgSearchLog(pool: Pool, t: Tables): SearchLog {
  return {
    async append(entries) {
      if (entries.length === 0) return
      const columns = INSERT_COLUMNS.split(',').length
      const values = entries.map(
        (_, i) => `(${Array.from({ length: columns }, (_, c) => `$${i * columns + c + 1}`).join(', ')})`,
      )
      await pool.query(
        `INSERT INTO ${t.searches} (${INSERT_COLUMNS}) VALUES ${values.join(', ')}`,
        entries.flatMap((e) => insertValues(e, (b) => b)),
      )
    },
    async list(q) {
      const where = whereOf(q, (n) => `$${n}`)
      const { rows } = await pool.query(
        `SELECT * FROM ${t.searches} ${where.sql} ORDER BY at_ms DESC, id DESC LIMIT $${where.params.length + 1}`,
        [...where.params, q.limit],
      )
      return rows.map(recordOf)
    },
    async feedback(f) {
      const { rowCount } = await pool.query(
        `UPDATE ${t.searches} SET useful = $1, note = $2, feedback_at_ms = $3
         WHERE request_id = $4 AND agent = $5 AND user_id IS NOT DISTINCT FROM $6`,
        [f.useful, f.note, f.atMs, f.requestId, f.agent, f.user],
      )
      return (rowCount ?? 0) > 0
    },
    async prune({ beforeMs, maxPerAgent }) {
      const old = await pool.query(`DELETE FROM ${t.searches} WHERE at_ms < $1`, [beforeMs])
      const beyond = await pool.query(
        `DELETE FROM ${t.searches} WHERE id IN (
           SELECT id FROM (
             SELECT id, row_number() OVER (PARTITION BY agent ORDER BY at_ms DESC, id DESC) AS n FROM ${t.searches}
           ) ranked WHERE n > $1)`,
        [maxPerAgent],
      )
      return (old.rowCount ?? 0) + (beyond.rowCount ?? 0)
    },
    close: () => undefined,
  }
}
