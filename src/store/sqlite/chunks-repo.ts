/**
 * Typed writes of files, chunks and chunks_fts, and reads of files and meta, on one
 * connection (search reads live in search-repo.ts; row-level chunk writes in
 * chunk-rows.ts). Statements are prepared once per connection; snake_case columns are
 * mapped to camelCase here only.
 */
import { ENTRY_SELECT, entryOf, type EntryColumns } from './entry-columns.js'
import type { ChunkInput, FileRecord, PendingChunk, Source } from '../../domain/chunks.js'
import { diffChunks } from '../chunk-diff.js'
import type { EntryLocation, EntryQuery } from '../port.js'
import { toFileRecord, type FileRow } from '../file-row.js'
import { createChunkRows, type ChunkRef } from './chunk-rows.js'
import type { Db } from './database.js'
import type { TermDocs } from './term-docs.js'
import type { VectorRepo } from './vector-repo.js'

/** A chunk row as replaceFile compares it. */
type StoredChunk = ChunkRef & { startLine: number; endLine: number; contentHash: string } & EntryColumns & {
    entryHash: string | null
  }

/** What replacing a file's chunks takes: the chunks to insert and the rows to delete. */
export type ReplacePlan = { added: ChunkInput[]; removed: ChunkRef[] }

/**
 * @param storeVectors false while the index's vector layout differs from the configured
 *   one: chunks are still written (keyword search stays current) but not their vectors.
 * @param termDocs the common terms' counts the writer keeps (term-docs.ts); null when reading.
 */
export function createChunksRepo(db: Db, vectors: VectorRepo, storeVectors: boolean, termDocs: TermDocs | null) {
  const rows = createChunkRows(db, vectors, storeVectors, termDocs)
  const stmt = {
    listFiles: db.prepare<[], FileRow>('SELECT * FROM files ORDER BY path'),
    getFile: db.prepare<[string], FileRow>('SELECT * FROM files WHERE path = ?'),
    fileGen: db.prepare<[string], { gen: number }>('SELECT gen FROM files WHERE path = ?'),
    // The newest read of a path the index has applied: its row, or the deletion that removed it.
    readSeqOf: db.prepare<[string, string], { m: number | null }>(
      `SELECT MAX(read_seq) AS m FROM (SELECT read_seq FROM files WHERE path = ?
       UNION ALL SELECT read_seq FROM deleted_files WHERE path = ?)`,
    ),
    maxReadSeq: db.prepare<[], { m: number | null }>(
      'SELECT MAX(read_seq) AS m FROM (SELECT read_seq FROM files UNION ALL SELECT read_seq FROM deleted_files)',
    ),
    touchFile: db.prepare(
      `UPDATE files SET size_bytes = @sizeBytes, mtime_ms = @mtimeMs, indexed_at_ms = @indexedAtMs, read_seq = @readSeq
       WHERE path = @path AND sha256 = @sha256`,
    ),
    addTombstone: db.prepare(
      `INSERT INTO deleted_files (path, read_seq) VALUES (?, ?)
       ON CONFLICT(path) DO UPDATE SET read_seq = excluded.read_seq`,
    ),
    dropTombstone: db.prepare('DELETE FROM deleted_files WHERE path = ?'),
    // The generation is kept unless given: a file changed in one transaction stays at it.
    upsertFile: db.prepare(
      `INSERT INTO files (path, source, sha256, size_bytes, mtime_ms, line_count, chunk_count, indexed_at_ms, read_seq, gen)
       VALUES (@path, @source, @sha256, @sizeBytes, @mtimeMs, @lineCount, @chunkCount, @indexedAtMs, @readSeq,
         COALESCE(@gen, 0))
       ON CONFLICT(path) DO UPDATE SET source = excluded.source, sha256 = excluded.sha256,
         size_bytes = excluded.size_bytes, mtime_ms = excluded.mtime_ms, line_count = excluded.line_count,
         chunk_count = excluded.chunk_count, indexed_at_ms = excluded.indexed_at_ms, read_seq = excluded.read_seq,
         gen = COALESCE(@gen, files.gen)`,
    ),
    chunksOf: db.prepare<[string], StoredChunk>(
      `SELECT c.id, c.token_count AS tokenCount, c.start_line AS startLine, c.end_line AS endLine,
         c.content_hash AS contentHash, ${ENTRY_SELECT}, c.entry_hash AS entryHash
       FROM chunks c WHERE c.path = ?`,
    ),
    deleteFile: db.prepare('DELETE FROM files WHERE path = ?'),
    entriesByHash: db.prepare<[string], EntryLocation>(
      `SELECT path, MIN(start_line) AS startLine, MAX(end_line) AS endLine, entry_hash AS hash FROM chunks
       WHERE entry_hash IN (SELECT value FROM json_each(?)) AND dead IS NULL
         AND (entry_status IS NULL OR entry_status = 'active')
       GROUP BY path, entry_hash ORDER BY path`,
    ),
    entriesByKey: db.prepare<[string], EntryLocation>(
      `SELECT path, MIN(start_line) AS startLine, MAX(end_line) AS endLine, NULL AS hash FROM chunks
       WHERE entry_key = ? AND dead IS NULL AND entry_status = 'active'
       GROUP BY path ORDER BY path`,
    ),
    chunkPlace: db.prepare<[number], { datedMs: number | null } & EntryColumns>(
      `SELECT c.dated_ms AS datedMs, ${ENTRY_SELECT} FROM chunks c WHERE c.id = ?`,
    ),
    // `LIMIT +?`: not compiled again at each run, as a bare parameter would be (search-repo.ts).
    pending: db.prepare<[number], PendingChunk>(
      `SELECT id, path, source, text, headings, content_hash AS contentHash
       FROM chunks WHERE has_vector = 0 AND dead IS NULL ORDER BY id LIMIT +?`,
    ),
    pendingCount: db.prepare<[], { n: number }>(
      'SELECT COUNT(*) AS n FROM chunks WHERE has_vector = 0 AND dead IS NULL',
    ),
    counts: db.prepare<[], { source: Source; files: number; chunks: number }>(
      'SELECT source, COUNT(*) AS files, SUM(chunk_count) AS chunks FROM files GROUP BY source',
    ),
    getMeta: db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?'),
    totalChanges: db.prepare<[], { n: number }>('SELECT total_changes() AS n'),
    // FTS5 commands want integers; a JS number is bound as REAL, a BigInt as INTEGER.
    ftsCommand: db.prepare<[string, bigint]>('INSERT INTO chunks_fts (chunks_fts, rank) VALUES (?, ?)'),
    setMeta: db.prepare(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    ),
  }

  const isStale = (path: string, readSeq: number) => (stmt.readSeqOf.get(path, path)?.m ?? -1) > readSeq
  const upsert = (file: FileRecord, gen: number | null) => stmt.upsertFile.run({ ...file, gen })

  /**
   * What replacing the file's chunks with `chunks` takes, or null when the index holds a
   * newer read of the file. Chunks that are unchanged (same lines, same content hash) keep
   * their rows, terms and vectors: an append to a long day file writes its last chunks, not
   * the whole file again.
   */
  function planReplace(file: FileRecord, chunks: readonly ChunkInput[]): ReplacePlan | null {
    if (isStale(file.path, file.readSeq)) return null
    const { added, removed } = diffChunks(
      stmt.chunksOf.all(file.path),
      (row) => ({ ...row, entry: entryOf(row) }),
      chunks,
    )
    return { added, removed: removed.map((r) => ({ id: r.id, tokenCount: r.tokenCount })) }
  }

  /** Applies a plan made in the same transaction: the file's chunks change at once. */
  function applyReplace(file: FileRecord, plan: ReplacePlan): void {
    stmt.dropTombstone.run(file.path)
    rows.remove(plan.removed)
    upsert(file, null)
    rows.insert(file, plan.added, 0)
  }

  return {
    rows,
    listFiles: (): FileRecord[] => stmt.listFiles.all().map(toFileRecord),
    findEntries: (q: EntryQuery): EntryLocation[] =>
      'hashes' in q ? stmt.entriesByHash.all(JSON.stringify(q.hashes)) : stmt.entriesByKey.all(q.key),
    getFile: (path: string): FileRecord | undefined => {
      const row = stmt.getFile.get(path)
      return row && toFileRecord(row)
    },
    /** The generation of the file's visible chunks (0 for a file never staged or not indexed). */
    fileGen: (path: string): number => stmt.fileGen.get(path)?.gen ?? 0,
    maxReadSeq: (): number => stmt.maxReadSeq.get()?.m ?? 0,
    isStale,
    planReplace,
    applyReplace,

    /**
     * Replaces a file's chunks in the caller's transaction, unless the index holds a newer
     * read of the file. Returns whether it wrote. For small changes: a big one is staged
     * over many transactions (staged-changes.ts).
     */
    replaceFile(file: FileRecord, chunks: ChunkInput[]): boolean {
      const plan = planReplace(file, chunks)
      if (plan) applyReplace(file, plan)
      return plan !== null
    },
    /**
     * Moves a staged file to generation `gen`: its chunks born at `gen` appear and those dead
     * at `gen` disappear, for every reader at once. False (nothing changed) when the index
     * holds a newer read of the file meanwhile.
     */
    publishFile(file: FileRecord, gen: number): boolean {
      if (isStale(file.path, file.readSeq)) return false
      stmt.dropTombstone.run(file.path)
      upsert(file, gen)
      rows.publishStaging(file.path)
      return true
    },
    /** Stores a chunk's vector, unless the chunk was deleted meanwhile (no orphan vector). */
    putVector(chunkId: number, path: string, source: Source, vector: Float32Array): void {
      if (!storeVectors) return
      const chunk = stmt.chunkPlace.get(chunkId)
      if (chunk) vectors.put(chunkId, path, source, { datedMs: chunk.datedMs, entry: entryOf(chunk) }, vector)
    },

    /**
     * Updates the metadata of a file whose content is unchanged (e.g. a touched mtime). Only
     * an existing row with the same SHA-256 is updated: an index that lacks the file (a
     * rebuild that has not reached it) gets it from its own read, never a row without chunks.
     */
    touchFile(file: FileRecord): void {
      if (!isStale(file.path, file.readSeq)) stmt.touchFile.run(file)
    },

    /**
     * Removes a file from the index, unless the index holds a read newer than `readSeq`;
     * returns whether it did. The deletion is remembered, so an older read committed later
     * cannot bring the file back. With `chunks` false the file's row goes but its chunks
     * stay, invisible, for a staged deletion to remove in batches.
     */
    deleteFile(path: string, readSeq: number, opts: { chunks: boolean } = { chunks: true }): boolean {
      if (isStale(path, readSeq)) return false
      stmt.addTombstone.run(path, readSeq)
      if (opts.chunks) rows.remove(rows.idsOfPath(path))
      stmt.deleteFile.run(path)
      return true
    },

    counts: () => stmt.counts.all(),
    /** Up to `limit` chunks without a vector, oldest first (chunks on their way out excluded). */
    pendingVectors: (limit: number): PendingChunk[] => stmt.pending.all(limit),
    pendingVectorCount: (): number => stmt.pendingCount.get()?.n ?? 0,
    getMeta: (key: string): string | undefined => stmt.getMeta.get(key)?.value,
    setMeta: (key: string, value: string): void => void stmt.setMeta.run(key, value),
    /** Sets FTS5 configuration options (automerge, crisismerge, …). */
    setFtsOptions(options: Record<string, number>): void {
      for (const [name, value] of Object.entries(options)) stmt.ftsCommand.run(name, BigInt(value))
    },
    /**
     * Merges FTS5 segments, writing at most about `pages` pages: segments of a level FTS5
     * would merge, or with `all` every segment into one. Returns false once there was
     * nothing left to merge (FTS5 reports that as fewer than 2 changes).
     */
    mergeStep(pages: number, all = false): boolean {
      const before = stmt.totalChanges.get()?.n ?? 0
      // A negative page count is FTS5's 'optimize' done in steps.
      stmt.ftsCommand.run('merge', BigInt(all ? -pages : pages))
      return (stmt.totalChanges.get()?.n ?? 0) - before >= 2
    },
  }
}

export type ChunksRepo = ReturnType<typeof createChunksRepo>
