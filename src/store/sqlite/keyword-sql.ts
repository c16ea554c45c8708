/**
 * What the keyword reads of search-repo.ts and list-candidates.ts share: the rows they
 * return, their parameters, and the request's filters as SQL over chunk `c`.
 */
import type { Source } from '../../domain/chunks.js'
import { MEMORY_FILE } from '../../domain/layout.js'
import type { KeywordCandidate, KeywordQuery } from '../port.js'
import { ENTRY_FILTERS, entryOf, entryParams, type EntryColumns } from './entry-columns.js'

/** A candidate and FTS5's bm25() for it (negative, lower is better). */
export type KeywordRow = KeywordCandidate & { rank: number }
/** A row as read: its entry in columns. */
export type Stored<T extends { entry: unknown }> = Omit<T, 'entry'> & EntryColumns

/** A row with its entry columns folded into `entry`. */
export function withEntry<T extends { entry: unknown }>(row: Stored<T>): T {
  const { entryStatus, entryObserved, entryKey, entryOrigin, ...rest } = row
  return { ...rest, entry: entryOf({ entryStatus, entryObserved, entryKey, entryOrigin }) } as unknown as T
}

export type Params = {
  match: string
  limit: number
  /** Rows FTS5 hands over for @limit to be kept (RANKED_ALL); -1: all. */
  fetch: number
  headingWeight: number
  pathPrefix: string | null
  source: Source | null
  excludeMemoryFile: 0 | 1
  /** 1 when a time range applies: chunks dated in [after, before), and undated ones unless datedOnly. */
  dated: 0 | 1
  after: number
  before: number
  datedOnly: 0 | 1
} & ReturnType<typeof entryParams>

/** Open ends of a time range: dates are ms since the epoch, far inside ±2^53. */
const NO_LOWER = -8.64e15
const NO_UPPER = 8.64e15

/** The request's filters on chunk `c`; excludeMemoryFile is scope "shared" (no long-term memory). */
export const FILTERS = `(@pathPrefix IS NULL OR substr(c.path, 1, length(@pathPrefix)) = @pathPrefix)
  AND (@source IS NULL OR c.source = @source)
  AND (@excludeMemoryFile = 0 OR c.path <> '${MEMORY_FILE}')
  AND (@dated = 0 OR (c.dated_ms IS NULL AND @datedOnly = 0) OR (c.dated_ms >= @after AND c.dated_ms < @before))
  AND ${ENTRY_FILTERS}`

/** A chunk `c` belongs to the generation its file is at (schema.ts: born, dead, gen). */
export const VISIBLE = `EXISTS (SELECT 1 FROM files vf WHERE vf.path = c.path AND c.born <= vf.gen
  AND (c.dead IS NULL OR c.dead > vf.gen))`

export const toParams = (q: KeywordQuery, match: string): Params => ({
  match,
  limit: q.limit,
  fetch: q.limit,
  headingWeight: q.headingWeight,
  pathPrefix: q.pathPrefix ?? null,
  source: q.source ?? null,
  excludeMemoryFile: q.excludeMemoryFile ? 1 : 0,
  dated: q.dated ? 1 : 0,
  after: q.dated?.afterMs ?? NO_LOWER,
  before: q.dated?.beforeMs ?? NO_UPPER,
  datedOnly: q.dated?.datedOnly ? 1 : 0,
  ...entryParams(q),
})
