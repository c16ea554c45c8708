/**
 * The file records of one round of a write (index-writes.ts), a statement per step for all
 * its files: the newest read the index holds of each, the records of files replaced or
 * found unchanged, and the deletions of files gone (remembered, so an older read cannot
 * bring a file back).
 */
import type { FileRecord } from '../../domain/chunks.js'
import type { Removal } from '../port.js'
import { numberArray, textBinary } from './array-literal.js'
import type { Client, Tables } from './database.js'

export function createFileRecords(t: Tables) {
  /**
   * The newest read of each of `paths` the index has applied: its row, or the deletion that
   * removed it (none: never seen).
   */
  async function newestReads(c: Client, indexId: number, paths: readonly string[]): Promise<Map<string, number>> {
    const { rows } = await c.query<{ path: string; m: number | null }>(
      `SELECT p.path, GREATEST(f.read_seq, d.read_seq) AS m FROM unnest($2::text[]) AS p(path)
         LEFT JOIN ${t.files} f ON f.index_id = $1 AND f.path = p.path
         LEFT JOIN ${t.deleted} d ON d.index_id = $1 AND d.path = p.path`,
      [indexId, textBinary(paths)],
    )
    return new Map(rows.flatMap((r) => (r.m === null ? [] : [[r.path, r.m]])))
  }

  /** Writes the records of files whose rows were replaced, and forgets their deletion. */
  async function upsert(c: Client, indexId: number, files: readonly FileRecord[]): Promise<void> {
    if (files.length === 0) return
    await c.query(
      `WITH forgotten AS (DELETE FROM ${t.deleted} WHERE index_id = $1 AND path = ANY($2::text[]))
       INSERT INTO ${t.files} (index_id, path, source, sha256, size_bytes, mtime_ms, line_count, chunk_count,
         indexed_at_ms, read_seq)
       SELECT $1, u.* FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::float8[], $7::int[], $8::int[],
         $9::float8[], $10::bigint[]) AS u
       ON CONFLICT (index_id, path) DO UPDATE SET source = excluded.source, sha256 = excluded.sha256,
         size_bytes = excluded.size_bytes, mtime_ms = excluded.mtime_ms, line_count = excluded.line_count,
         chunk_count = excluded.chunk_count, indexed_at_ms = excluded.indexed_at_ms, read_seq = excluded.read_seq`,
      [
        indexId,
        textBinary(files.map((f) => f.path)),
        textBinary(files.map((f) => f.source)),
        textBinary(files.map((f) => f.sha256)),
        numberArray(files.map((f) => f.sizeBytes)),
        numberArray(files.map((f) => f.mtimeMs)),
        numberArray(files.map((f) => f.lineCount)),
        numberArray(files.map((f) => f.chunkCount)),
        numberArray(files.map((f) => f.indexedAtMs)),
        numberArray(files.map((f) => f.readSeq)),
      ],
    )
  }

  /** Refreshes the records of files found unchanged (their hash as the index has it). */
  async function touch(c: Client, indexId: number, files: readonly FileRecord[]): Promise<void> {
    if (files.length === 0) return
    await c.query(
      `UPDATE ${t.files} AS f SET size_bytes = u.sb, mtime_ms = u.mt, indexed_at_ms = u.ia, read_seq = u.rs
       FROM unnest($2::text[], $3::bigint[], $4::float8[], $5::float8[], $6::bigint[], $7::text[])
         AS u(p, sb, mt, ia, rs, sha)
       WHERE f.index_id = $1 AND f.path = u.p AND f.sha256 = u.sha`,
      [
        indexId,
        textBinary(files.map((f) => f.path)),
        numberArray(files.map((f) => f.sizeBytes)),
        numberArray(files.map((f) => f.mtimeMs)),
        numberArray(files.map((f) => f.indexedAtMs)),
        numberArray(files.map((f) => f.readSeq)),
        textBinary(files.map((f) => f.sha256)),
      ],
    )
  }

  /** Drops the records of files gone, remembering each deletion's read (their chunk rows go apart). */
  async function remove(c: Client, indexId: number, gone: readonly Removal[]): Promise<void> {
    if (gone.length === 0) return
    await c.query(
      `WITH dropped AS (DELETE FROM ${t.files} WHERE index_id = $1 AND path = ANY($2::text[]))
       INSERT INTO ${t.deleted} (index_id, path, read_seq)
       SELECT $1, u.p, u.rs FROM unnest($2::text[], $3::bigint[]) AS u(p, rs)
       ON CONFLICT (index_id, path) DO UPDATE SET read_seq = excluded.read_seq`,
      [indexId, textBinary(gone.map((r) => r.path)), numberArray(gone.map((r) => r.readSeq))],
    )
  }

  return { newestReads, upsert, touch, remove }
}

export type FileRecords = ReturnType<typeof createFileRecords>
