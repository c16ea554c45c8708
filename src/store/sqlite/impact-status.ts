/**
 * How far an index's impact lists (impact-lists.ts) and rare lists (rare-lists.ts) are, read
 * from its file by a separate read-only connection: the benchmarks wait for the lists before
 * they measure, and the tests for them to catch up with the newest chunks.
 */
import Database from 'better-sqlite3'
import { BUILT_ROWS_KEY } from './impact-lists.js'
import { LIST_UPTO, RARE_BUILT_ROWS_KEY } from './rare-lists.js'

export type ImpactListStatus = {
  /** Whether the lists were built from every chunk at least once. */
  built: boolean
  /** Chunk ids written past the least current list (≤ 0: every list is current; null: no list). */
  behind: number | null
}

export const impactListStatus = (dbPath: string): ImpactListStatus =>
  listStatus(dbPath, BUILT_ROWS_KEY, 'impact_terms', 'upto')

/** The same for the rare lists. */
export const rareListStatus = (dbPath: string): ImpactListStatus =>
  listStatus(dbPath, RARE_BUILT_ROWS_KEY, 'rare_postings', LIST_UPTO)

/** `upto`: what a row of `table` covers the chunks up to, in SQL. */
function listStatus(dbPath: string, builtKey: string, table: string, upto: string): ImpactListStatus {
  const db = new Database(dbPath, { readonly: true })
  try {
    // An index of a build without them (benchmarks compare builds): nothing to wait for.
    if (db.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(table) === undefined)
      return { built: true, behind: null }
    const built = db.prepare('SELECT 1 FROM meta WHERE key = ?').get(builtKey) !== undefined
    const row = db
      .prepare<[], { behind: number | null }>(
        `SELECT (SELECT MAX(id) FROM chunks) - (SELECT MIN(${upto}) FROM ${table}) AS behind`,
      )
      .get()
    return { built, behind: row?.behind ?? null }
  } finally {
    db.close()
  }
}

/** Which of `terms` have a rare list in the index at `dbPath`. */
export function rareListed(dbPath: string, terms: readonly string[]): string[] {
  const db = new Database(dbPath, { readonly: true })
  try {
    const listed = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM rare_postings WHERE term = ?')
    return terms.filter((term) => listed.get(term) !== undefined)
  } finally {
    db.close()
  }
}
