/**
 * The search log's rows as both engines store them (the same columns; SQLite's
 * store/sqlite/search-log.ts, PostgreSQL's store/postgres/search-log.ts): reading one, and
 * the WHERE clause of a query.
 */
import type { SearchLogEntry, SearchLogQuery, SearchLogRecord } from './search-log-port.js'

export type SearchRow = {
  request_id: string
  at_ms: number
  agent: string
  user_id: string | null
  query: string
  mode: string
  results: number
  best_score: number | null
  abstained: number
  latency_ms: number
  degraded: string
  useful: number | null
  note: string | null
  feedback_at_ms: number | null
}

/** A row as the port's record (abstained and useful: 0/1 in SQLite, booleans in PostgreSQL). */
export function recordOf(
  r: Omit<SearchRow, 'abstained' | 'useful'> & { abstained: unknown; useful: unknown },
): SearchLogRecord {
  return {
    requestId: r.request_id,
    atMs: Number(r.at_ms),
    agent: r.agent,
    user: r.user_id,
    query: r.query,
    mode: r.mode,
    results: r.results,
    bestScore: r.best_score,
    abstained: Boolean(r.abstained),
    latencyMs: r.latency_ms,
    degraded: r.degraded === '' ? [] : r.degraded.split(','),
    feedback:
      r.useful === null || r.feedback_at_ms === null
        ? null
        : { useful: Boolean(r.useful), note: r.note, atMs: Number(r.feedback_at_ms) },
  }
}

/** The WHERE clause and parameters of a query (`?` placeholders). */
export function whereOf(q: SearchLogQuery, placeholder: (n: number) => string): { sql: string; params: unknown[] } {
  const parts: string[] = []
  const params: unknown[] = []
  const add = (sql: (p: string) => string, value: unknown) => {
    params.push(value)
    parts.push(sql(placeholder(params.length)))
  }
  if (q.agent !== undefined) add((p) => `agent = ${p}`, q.agent)
  if (q.user === null) parts.push('user_id IS NULL')
  else if (q.user !== undefined) add((p) => `user_id = ${p}`, q.user)
  if (q.sinceMs !== undefined) add((p) => `at_ms >= ${p}`, q.sinceMs)
  if (q.noResults) parts.push('results = 0')
  return { sql: parts.length > 0 ? `WHERE ${parts.join(' AND ')}` : '', params }
}

/** The columns an entry is inserted into, in the order of insertValues, with their PostgreSQL types. */
export const INSERT_COLUMN_TYPES = [
  ['request_id', 'text'],
  ['at_ms', 'bigint'],
  ['agent', 'text'],
  ['user_id', 'text'],
  ['query', 'text'],
  ['mode', 'text'],
  ['results', 'int'],
  ['best_score', 'double precision'],
  ['abstained', 'boolean'],
  ['latency_ms', 'double precision'],
  ['degraded', 'text'],
] as const

export const INSERT_COLUMNS = INSERT_COLUMN_TYPES.map(([column]) => column).join(', ')

/** An entry's values for INSERT_COLUMNS; `bool` stores abstained (0/1 in SQLite, a boolean in PostgreSQL). */
export function insertValues(e: SearchLogEntry, bool: (b: boolean) => unknown): unknown[] {
  return [
    e.requestId,
    e.atMs,
    e.agent,
    e.user,
    e.query,
    e.mode,
    e.results,
    e.bestScore,
    bool(e.abstained),
    e.latencyMs,
    e.degraded.join(','),
  ]
}
