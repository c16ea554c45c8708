/**
 * A chunk's entry (domain/entry-meta.ts) in the SQLite index: four columns of `chunks`
 * (entry_status NULL: no entry), and, for the search filters, FTS5 terms in a third column
 * of chunks_fts (`entry_terms`), so the default search (current facts only) and an origins
 * filter stay inside the FTS5 query — a `NOT` and an `AND` over short doclists — instead of
 * joining every match to its chunk row. The column's BM25 weight is 0: it never moves a rank.
 *
 * The terms start with U+E000, a private-use character the analyzer never emits, so no
 * word of a note or a query can be one of them.
 */
import type { ChunkFilters } from '../../domain/chunks.js'
import type { ChunkEntry, EntryStatus, Origin } from '../../domain/entry-meta.js'

const MARK = '\uE000'
/** The term of a superseded chunk (its document frequency says whether the index has any). */
export const SUPERSEDED = `${MARK}superseded`
const originTerm = (origin: Origin) => `${MARK}origin_${origin}`

/** The entry_terms of a chunk in `entry`: its status when superseded, its origin when given. */
export function entryTerms(entry: ChunkEntry | null): string {
  if (!entry) return ''
  const terms: string[] = []
  if (entry.status === 'superseded') terms.push(SUPERSEDED)
  if (entry.origin) terms.push(originTerm(entry.origin))
  return terms.join(' ')
}

/**
 * What FTS5 is asked besides the query's terms, for the entry filters (empty: nothing).
 * `anySuperseded`: whether the index holds a superseded chunk at all; without one the
 * status filter would change nothing, and the query stays exactly what it was before
 * entries existed.
 */
export function entryClauses(
  filters: Pick<ChunkFilters, 'includeSuperseded' | 'origins'>,
  anySuperseded: boolean,
): string {
  let clauses = ''
  if (filters.origins) {
    // No origin at all passes nothing: a term that no chunk holds.
    const terms = filters.origins.length > 0 ? filters.origins.map(originTerm) : [`${MARK}none`]
    clauses += ` AND entry_terms : (${terms.map((t) => `"${t}"`).join(' OR ')})`
  }
  if (!filters.includeSuperseded && anySuperseded) clauses += ` NOT entry_terms : "${SUPERSEDED}"`
  return clauses
}

/** A FTS5 MATCH of the query terms (already an expression) in the text columns, with the entry filters. */
export function matchWithEntries(
  terms: string,
  filters: Pick<ChunkFilters, 'includeSuperseded' | 'origins'>,
  anySuperseded: boolean,
): string {
  const clauses = entryClauses(filters, anySuperseded)
  return clauses === '' ? terms : `({body_terms heading_terms} : (${terms}))${clauses}`
}

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
