/**
 * SQL pieces the reads of an index share (index-reads.ts, list-candidates.ts): which index
 * a read is about (Scope), the columns of a chunk's head and the conditions of the search
 * filters.
 */
import type { ChunkFilters } from '../../domain/chunks.js'
import { MEMORY_FILE } from '../../domain/layout.js'
import type { Tables } from './database.js'

/** Which index a read is about: `$1` in every query. */
export type Scope = { sql: string; param: string | number }

/** A space's live index. */
export const liveScope = (t: Tables, space: string): Scope => ({
  sql: `(SELECT live FROM ${t.spaces} WHERE space = $1)`,
  param: space,
})
/** One index by id (a rebuild's new index). */
export const idScope = (id: number): Scope => ({ sql: '$1::bigint', param: id })

export const HEAD = `c.id, c.path, c.source, c.start_line AS "startLine", c.end_line AS "endLine", c.token_count AS "tokenCount",
  c.dated_ms::float8 AS "datedMs", CASE WHEN c.entry_status IS NULL THEN NULL ELSE json_build_object('status',
  c.entry_status, 'observed', c.entry_observed, 'key', c.entry_key, 'origin', c.entry_origin) END AS entry`

/**
 * Where a term may be in the keys of the chunk `c`, 1-based, given its key (term-hash.ts) as
 * an SQL expression: where a binary search (width_bucket) of the row's ascending `keys`
 * places it. A scan of a chunk's ~200 text keys compared each in turn, about 3 µs a term:
 * most of a multi-term search's database time (BENCHMARKS.md).
 */
export const termSlot = (key: string): string => `width_bucket(${key}, c.keys)`

/**
 * termSlot's place `slot` when the term is there, else NULL: a binary search names a slot
 * whether the term is there or not, so the key there is compared with the term's.
 */
export const termAt = (key: string, slot: string): string => `CASE WHEN c.keys[${slot}] = ${key} THEN ${slot} END`

/** The chunk's raw text beside its head when a keyword query asks for texts (KeywordQuery.texts). */
export const textColumn = (q: { texts?: boolean | undefined }): string => (q.texts ? ', c.text' : '')

/**
 * SQL conditions on the chunk alias `c`, or on the vector row alias `v` when `chunks` names
 * the chunks table, for the filters (the entry's status and origin among them), adding their
 * values to `params`.
 */
export function filterSql(filters: ChunkFilters, params: unknown[], chunks?: string): string {
  const alias = chunks ? 'v' : 'c'
  const parts: string[] = []
  if (filters.pathPrefix) {
    params.push(filters.pathPrefix)
    parts.push(`left(${alias}.path, length($${params.length}::text)) = $${params.length}::text`)
  }
  if (filters.source) {
    params.push(filters.source)
    parts.push(`${alias}.source = $${params.length}`)
  }
  if (filters.excludeMemoryFile) {
    params.push(MEMORY_FILE)
    parts.push(`${alias}.path <> $${params.length}`)
  }
  // A vector row has no date or entry: they are read from the vector's chunk.
  const ofChunk = (column: string) =>
    chunks ? `(SELECT dc.${column} FROM ${chunks} dc WHERE dc.id = v.chunk_id)` : `c.${column}`
  if (!filters.includeSuperseded) parts.push(`${ofChunk('entry_status')} IS DISTINCT FROM 'superseded'`)
  if (filters.origins) {
    params.push([...filters.origins])
    parts.push(`${ofChunk('entry_origin')} = ANY($${params.length}::text[])`)
  }
  const range = filters.dated
  if (range) {
    const dated = ofChunk('dated_ms')
    const bounds: string[] = []
    if (range.afterMs !== undefined) {
      params.push(Math.ceil(range.afterMs))
      bounds.push(`${dated} >= $${params.length}::bigint`)
    }
    if (range.beforeMs !== undefined) {
      params.push(Math.ceil(range.beforeMs))
      bounds.push(`${dated} < $${params.length}::bigint`)
    }
    const inRange = [`${dated} IS NOT NULL`, ...bounds].join(' AND ')
    parts.push(range.datedOnly ? `(${inRange})` : `(${dated} IS NULL OR (${inRange}))`)
  }
  return parts.map((p) => ` AND ${p}`).join('')
}
