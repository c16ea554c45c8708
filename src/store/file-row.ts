/**
 * A file's row as both engines store it (snake_case columns of the `files` table), and its
 * domain record: one mapping for SQLite and PostgreSQL.
 */
import type { FileRecord, Source } from '../domain/chunks.js'

export type FileRow = {
  path: string
  source: Source
  sha256: string
  size_bytes: number
  mtime_ms: number
  line_count: number
  chunk_count: number
  indexed_at_ms: number
  read_seq: number
}

export const toFileRecord = (r: FileRow): FileRecord => ({
  path: r.path,
  source: r.source,
  sha256: r.sha256,
  sizeBytes: r.size_bytes,
  mtimeMs: r.mtime_ms,
  lineCount: r.line_count,
  chunkCount: r.chunk_count,
  indexedAtMs: r.indexed_at_ms,
  readSeq: r.read_seq,
})
