/**
 * What an index holds, in the terms every layer speaks: files, their chunks and the
 * filters a search applies. Storage engines (src/store) persist these; indexing produces
 * them; search ranks them. No engine's column names or types appear here.
 */
import type { ChunkEntry, Origin } from './entry-meta.js'
import { MEMORY_FILE } from './layout.js'

export type Source = 'memory' | 'sessions'

export type FileRecord = {
  path: string
  source: Source
  sha256: string
  sizeBytes: number
  mtimeMs: number
  lineCount: number
  chunkCount: number
  indexedAtMs: number
  /**
   * When the file was read, in process-wide read order (indexing/read-sequence.ts). Several
   * writers (syncs, the write API, a rebuild) may index one file at once; the row from the
   * latest read wins and an older read's write is dropped.
   */
  readSeq: number
}

/** A chunk's raw text and its body terms by line (ChunkInput.bodyTerms), as a search reads them. */
export type ChunkText = { text: string; bodyTerms: string }
/**
 * A chunk's text as read by id after its search, with where it is: ids of a SQLite index are
 * numbered anew by a rebuild, so a text read after a swap may be another chunk's, and the
 * search keeps it only when it is at the place the hit is (search-service.ts).
 */
export type LocatedText = ChunkText & { path: string; startLine: number; endLine: number }

type Place = { path: string; startLine: number; endLine: number }
/** Whether a text read by id is at `hit`'s place, `hit`'s path being shown under `prefix`. */
export const samePlace = (text: Place, hit: Place, prefix = ''): boolean =>
  hit.path === prefix + text.path && hit.startLine === text.startLine && hit.endLine === text.endLine

export type ChunkInput = {
  startLine: number
  endLine: number
  text: string
  /** Enclosing headings joined with " / ". */
  headings: string
  /** SHA-256 of the text the chunk is embedded from (the embedding cache key). */
  contentHash: string
  /** Analysed terms of the chunk text, space-separated, a newline between lines (text/line-terms.ts). */
  bodyTerms: string
  /** Analysed terms of the enclosing headings and the file path. */
  headingTerms: string
  /** Number of terms in both columns (BM25's document length). */
  tokenCount: number
  /** When the chunk was written, in ms since the epoch (chunk-date.ts); null: undated (MEMORY.md). */
  datedMs: number | null
  /** The entry the chunk is in (entry-meta.ts); null outside any entry (no metadata). */
  entry: ChunkEntry | null
  /**
   * SHA-256 of its entry's text, whitespace folded (files/entry-text.ts), by which a write
   * finds an entry it would duplicate; absent or null: in no entry, or an empty one.
   */
  entryHash?: string | null | undefined
  /** The chunk's embedding; absent while the provider has not produced it. */
  vector?: Float32Array | undefined
}

/** A chunk still waiting for its vector. */
export type PendingChunk = {
  id: number
  path: string
  source: Source
  text: string
  headings: string
  contentHash: string
}

/** Where a chunk is, and its BM25 length; what search needs for every candidate. */
export type ChunkHead = {
  id: number
  path: string
  source: Source
  startLine: number
  endLine: number
  tokenCount: number
  /** When the chunk was written (chunk-date.ts); null: undated. */
  datedMs: number | null
  /** The entry the chunk is in; null outside any entry. */
  entry: ChunkEntry | null
}

/**
 * A time range: chunks dated in [afterMs, beforeMs) pass; undated ones (MEMORY.md) pass
 * unless `datedOnly`. A missing bound is open.
 */
export type DateRange = { afterMs?: number | undefined; beforeMs?: number | undefined; datedOnly: boolean }

/** Whether a chunk dated `datedMs` (null: undated) is in the range. */
export function inDateRange(datedMs: number | null, range: DateRange): boolean {
  if (datedMs === null) return !range.datedOnly
  return (
    (range.afterMs === undefined || datedMs >= range.afterMs) &&
    (range.beforeMs === undefined || datedMs < range.beforeMs)
  )
}

/** Which chunks a search considers. */
export type ChunkFilters = {
  pathPrefix?: string | undefined
  source?: Source | undefined
  /** Scope "shared": leave long-term memory (MEMORY.md) out. */
  excludeMemoryFile?: boolean | undefined
  /** Only chunks in this time range (request fields after, before, datedOnly). */
  dated?: DateRange | undefined
  /**
   * Superseded entries too (issue 31); without it a search sees current facts only, so a
   * search that names no filter at all still leaves them out.
   */
  includeSuperseded?: boolean | undefined
  /** Only chunks of entries with one of these origins (a chunk with none never passes). */
  origins?: readonly Origin[] | undefined
}

/** Whether a chunk in `entry` passes the entry filters (status, origin). */
export function passesEntryFilters(entry: ChunkEntry | null, filters: ChunkFilters): boolean {
  if (!filters.includeSuperseded && entry?.status === 'superseded') return false
  return !filters.origins || (entry?.origin != null && filters.origins.includes(entry.origin))
}

/** The filters as a predicate on a chunk's path, source, date and entry (pure). */
export function passesFilters(
  chunk: { path: string; source: string; datedMs: number | null; entry: ChunkEntry | null },
  filters: ChunkFilters,
): boolean {
  if (filters.source && chunk.source !== filters.source) return false
  if (filters.pathPrefix && !chunk.path.startsWith(filters.pathPrefix)) return false
  if (filters.dated && !inDateRange(chunk.datedMs, filters.dated)) return false
  if (!passesEntryFilters(chunk.entry, filters)) return false
  return !(filters.excludeMemoryFile && chunk.path === MEMORY_FILE)
}
