/**
 * Row-level writes of chunks (with their FTS5 rows and vectors) and of the staging table,
 * on one connection: what chunks-repo.ts does to a whole file in one transaction, and what
 * staged-changes.ts spreads over many small ones. Not transactional by themselves.
 */
import type { ChunkInput, FileRecord } from '../../domain/chunks.js'
import type { Db } from './database.js'
import { CHUNKS_VERSION_KEY, ID_FLOOR_KEY } from './schema.js'
import { entryValues } from './entry-columns.js'
import type { TermDocs } from './term-docs.js'
import type { VectorRepo } from './vector-repo.js'

/** A chunk row by id, with its number of analysed terms (what deleting it costs). */
export type ChunkRef = { id: number; tokenCount: number }

/** A path with a staged change under way (schema.ts, table staging). */
export type StagingRow = { path: string; gen: number; published: boolean }

const REF = 'id, token_count AS tokenCount'
/** Run once by each insert and delete of chunk rows (schema.ts CHUNKS_VERSION_KEY). */
const RAISE_CHUNKS_VERSION = `INSERT INTO meta (key, value) VALUES ('${CHUNKS_VERSION_KEY}', '1')
  ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`

const toStaging = (r: { path: string; gen: number; published: number }): StagingRow => ({
  path: r.path,
  gen: r.gen,
  published: r.published === 1,
})

/** `termDocs`: the common terms' counts the writer keeps (none on a read-only connection). */
export function createChunkRows(db: Db, vectors: VectorRepo, storeVectors: boolean, termDocs: TermDocs | null) {
  const stmt = {
    // The next id past both the newest chunk and the impact lists' floor (schema.ts ID_FLOOR_KEY).
    insertChunk: db.prepare(
      `INSERT INTO chunks (id, path, source, start_line, end_line, content_hash, text, headings, body_terms,
         heading_terms, token_count, dated_ms, entry_status, entry_observed, entry_key, entry_origin, entry_hash, born)
       VALUES (MAX(IFNULL((SELECT MAX(id) FROM chunks), 0),
           IFNULL((SELECT CAST(value AS INTEGER) FROM meta WHERE key = '${ID_FLOOR_KEY}'), 0)) + 1,
         ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    insertFts: db.prepare('INSERT INTO chunks_fts (rowid, body_terms, heading_terms) VALUES (?, ?, ?)'),
    // External-content FTS5 rows are removed with the 'delete' command and their old terms.
    deleteFtsRow: db.prepare(
      `INSERT INTO chunks_fts (chunks_fts, rowid, body_terms, heading_terms)
       SELECT 'delete', id, body_terms, heading_terms FROM chunks WHERE id = ?`,
    ),
    deleteChunk: db.prepare('DELETE FROM chunks WHERE id = ?'),
    contentChanged: db.prepare(RAISE_CHUNKS_VERSION),
    markDead: db.prepare('UPDATE chunks SET dead = ? WHERE id = ?'),
    unmarkDead: db.prepare('UPDATE chunks SET dead = NULL WHERE id = ? AND dead = ?'),
    idsOfPath: db.prepare<[string], ChunkRef>(`SELECT ${REF} FROM chunks WHERE path = ? ORDER BY id`),
    idsBorn: db.prepare<[string, number], ChunkRef>(`SELECT ${REF} FROM chunks WHERE path = ? AND born = ?`),
    idsDeadAt: db.prepare<[string, number], ChunkRef>(`SELECT ${REF} FROM chunks WHERE path = ? AND dead = ?`),
    idsDeadBy: db.prepare<[string, number], ChunkRef>(
      `SELECT ${REF} FROM chunks WHERE path = ? AND dead IS NOT NULL AND dead <= ?`,
    ),
    termsOfPath: db.prepare<[string], { n: number }>(
      'SELECT COALESCE(SUM(token_count), 0) AS n FROM chunks WHERE path = ?',
    ),
    stagingRows: db.prepare<[], { path: string; gen: number; published: number }>(
      'SELECT path, gen, published FROM staging ORDER BY path',
    ),
    stagingRow: db.prepare<[string], { path: string; gen: number; published: number }>(
      'SELECT path, gen, published FROM staging WHERE path = ?',
    ),
    beginStaging: db.prepare('INSERT INTO staging (path, gen, published) VALUES (?, ?, ?)'),
    publishStaging: db.prepare('UPDATE staging SET published = 1 WHERE path = ?'),
    endStaging: db.prepare('DELETE FROM staging WHERE path = ?'),
  }

  return {
    /** Inserts chunks of `file` that join at generation `born`; returns their ids. */
    insert(file: Pick<FileRecord, 'path' | 'source'>, chunks: readonly ChunkInput[], born: number): number[] {
      const out: number[] = []
      for (const c of chunks) {
        const { lastInsertRowid } = stmt.insertChunk.run(
          file.path,
          file.source,
          c.startLine,
          c.endLine,
          c.contentHash,
          c.text,
          c.headings,
          c.bodyTerms,
          c.headingTerms,
          c.tokenCount,
          c.datedMs,
          ...entryValues(c.entry),
          c.entryHash ?? null,
          born,
        )
        stmt.insertFts.run(lastInsertRowid, c.bodyTerms, c.headingTerms)
        if (c.vector && storeVectors) {
          vectors.put(lastInsertRowid, file.path, file.source, { datedMs: c.datedMs, entry: c.entry }, c.vector)
        }
        out.push(Number(lastInsertRowid))
      }
      termDocs?.inserted(chunks)
      if (chunks.length > 0) stmt.contentChanged.run()
      return out
    },
    /** Deletes chunks, with their FTS5 rows and vectors. */
    remove(chunks: readonly ChunkRef[]): void {
      termDocs?.removing(chunks.map((c) => c.id))
      vectors.deleteIds(chunks.map((c) => c.id))
      for (const { id } of chunks) {
        stmt.deleteFtsRow.run(id)
        stmt.deleteChunk.run(id)
      }
      if (chunks.length > 0) stmt.contentChanged.run()
    },
    /** Marks chunks as leaving at generation `gen` (they stay visible until the file reaches it). */
    markDead(chunks: readonly ChunkRef[], gen: number): void {
      for (const { id } of chunks) stmt.markDead.run(gen, id)
    },
    /** Takes back markDead(…, gen) for an abandoned staged change. */
    unmarkDead(chunks: readonly ChunkRef[], gen: number): void {
      for (const { id } of chunks) stmt.unmarkDead.run(id, gen)
    },
    idsOfPath: (path: string): ChunkRef[] => stmt.idsOfPath.all(path),
    /** Chunks a staged change at `gen` inserted. */
    idsBorn: (path: string, gen: number): ChunkRef[] => stmt.idsBorn.all(path, gen),
    /** Chunks a staged change at `gen` marked as leaving. */
    idsDeadAt: (path: string, gen: number): ChunkRef[] => stmt.idsDeadAt.all(path, gen),
    /** Chunks that have left by generation `gen` (invisible, waiting to be deleted). */
    idsDeadBy: (path: string, gen: number): ChunkRef[] => stmt.idsDeadBy.all(path, gen),
    /** Analysed terms of the path's chunks: what deleting them costs. */
    termsOfPath: (path: string): number => stmt.termsOfPath.get(path)?.n ?? 0,
    stagingRows: (): StagingRow[] => stmt.stagingRows.all().map(toStaging),
    stagingRow: (path: string): StagingRow | null => {
      const row = stmt.stagingRow.get(path)
      return row ? toStaging(row) : null
    },
    beginStaging(path: string, gen: number, published: boolean): void {
      stmt.beginStaging.run(path, gen, published ? 1 : 0)
    },
    publishStaging: (path: string): void => void stmt.publishStaging.run(path),
    endStaging: (path: string): void => void stmt.endStaging.run(path),
  }
}

export type ChunkRows = ReturnType<typeof createChunkRows>
