/**
 * How far an index's impact lists are (impact-lists.ts), read from its file by a separate
 * read-only connection: the benchmarks wait for the lists before they measure, and the tests
 * for them to catch up with the newest chunks.
 */
import Database from 'better-sqlite3'
import { BUILT_ROWS_KEY } from './impact-lists.js'

export type ImpactListStatus = {
  /** Whether the lists were built from every chunk at least once. */
  built: boolean
  /** Chunk ids written past the least current list (≤ 0: every list is current; null: no list). */
  behind: number | null
}

export function impactListStatus(dbPath: string): ImpactListStatus {
  const db = new Database(dbPath, { readonly: true })
  try {
    const built = db.prepare('SELECT 1 FROM meta WHERE key = ?').get(BUILT_ROWS_KEY) !== undefined
    const row = db
      .prepare<[], { behind: number | null }>(
        'SELECT (SELECT MAX(id) FROM chunks) - (SELECT MIN(upto) FROM impact_terms) AS behind',
      )
      .get()
    return { built, behind: row?.behind ?? null }
  } finally {
    db.close()
  }
}
