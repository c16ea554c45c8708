/**
 * A chunk's entry (domain/entry-meta.ts) in the SQLite index: four columns of `chunks`
 * (entry_status NULL: no entry), and two metadata columns of the vec0 table.
 *
 * The status filter of a keyword search (current facts only, the default) is applied to the
 * ranked rows, not inside the FTS5 query: FTS5 scores every match of the query before its
 * LIMIT in any case, so asking it for more rows and dropping the superseded ones (read
 * without their terms) costs little (search-repo.ts), where a NOT clause in the MATCH, or a join of
 * every match to its row, cost a third of a search (BENCHMARKS.md, "Entries"). The origins
 * filter, rare and possibly narrow, is a condition on the joined rows.
 */
import type { ChunkFilters } from '../../domain/chunks.js'
import type { ChunkEntry, EntryStatus, Origin } from '../../domain/entry-meta.js'

/** The entry columns of a chunk row, as stored. */
export type EntryColumns = {
  entryStatus: EntryStatus | null
  entryObserved: string | null
  entryKey: string | null
  entryOrigin: Origin | null
}

/** SELECT list of the entry columns of chunk alias `c`, named as EntryColumns. */
export const ENTRY_SELECT =
  'c.entry_status AS entryStatus, c.entry_observed AS entryObserved, c.entry_key AS entryKey, c.entry_origin AS entryOrigin'

/** SQL condition on chunk `c`: superseded. */
export const SUPERSEDED = `c.entry_status = 'superseded'`

/** SQL condition on chunk `c`: current (not superseded), or @includeSuperseded = 1. */
export const CURRENT = `(@includeSuperseded = 1 OR c.entry_status IS NULL OR NOT ${SUPERSEDED})`

/**
 * SQL conditions on chunk `c` for the entry filters, with parameters @includeSuperseded
 * (0 or 1) and @origins (a JSON array, or NULL for no filter).
 */
export const ENTRY_FILTERS = `${CURRENT}
  AND (@origins IS NULL OR c.entry_origin IN (SELECT value FROM json_each(@origins)))`

/** The parameters of ENTRY_FILTERS. */
export const entryParams = (filters: Pick<ChunkFilters, 'includeSuperseded' | 'origins'>) => ({
  includeSuperseded: filters.includeSuperseded ? 1 : 0,
  origins: filters.origins ? JSON.stringify(filters.origins) : null,
})

/** The entry of a chunk row (null: none). */
export const entryOf = (row: EntryColumns): ChunkEntry | null =>
  row.entryStatus === null
    ? null
    : { status: row.entryStatus, observed: row.entryObserved, key: row.entryKey, origin: row.entryOrigin }

/** The columns to store for `entry`, in the order status, observed, key, origin. */
export const entryValues = (entry: ChunkEntry | null): (string | null)[] =>
  entry ? [entry.status, entry.observed, entry.key, entry.origin] : [null, null, null, null]

/** vec0 metadata cannot be NULL: a chunk outside any entry is active with origin ''. */
export const vecEntryValues = (entry: ChunkEntry | null): [status: string, origin: string] => [
  entry?.status ?? 'active',
  entry?.origin ?? '',
]
