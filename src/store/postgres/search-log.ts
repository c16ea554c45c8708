/**
 * The search log (store/port.ts SearchLog) as one table of the schema, shared by every
 * replica: a search answered by any of them is listed by all.
 */
import type { SearchLog } from '../search-log-port.js'
import { INSERT_COLUMN_TYPES, INSERT_COLUMNS, insertValues, recordOf, whereOf } from '../search-log-rows.js'
import type { Pool, Tables } from './database.js'

/** The row type jsonb_to_recordset reads the inserted entries as. */
const RECORD_TYPES = INSERT_COLUMN_TYPES.map(([column, type]) => `${column} ${type}`).join(', ')

export function createPgSearchLog(pool: Pool, t: Tables): SearchLog {
  return {
    async append(entries) {
      if (entries.length === 0) return
      const rows = entries.map((e) => {
        const values = insertValues(e, (b) => b)
        return Object.fromEntries(INSERT_COLUMN_TYPES.map(([column], i) => [column, values[i]]))
      })
      // Every row in one JSON parameter: one short statement whatever the batch's size.
      await pool.query(
        `INSERT INTO ${t.searches} (${INSERT_COLUMNS})
         SELECT ${INSERT_COLUMNS} FROM jsonb_to_recordset($1::jsonb) AS r(${RECORD_TYPES})`,
        [JSON.stringify(rows)],
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
