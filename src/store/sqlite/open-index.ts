/**
 * Opening an index file (index-store.ts): the writer's connection, created with its schema
 * and vector table, or recreated when the file is of another version or not a database at
 * all (the index is a cache of the workspace files); a reader's, read-only, taking the
 * vector layout the file has.
 */
import fs from 'node:fs'
import path from 'node:path'
import { openDatabase, type Db } from './database.js'
import type { ImpactListOptions } from './impact-lists.js'
import type { RareListOptions } from './rare-lists.js'
import { checkSchema, ensureSchema } from './schema.js'
import type { VectorConfig } from '../port.js'
import { createVolumeRoom } from './volume-room.js'
import { ensureVectorTable, sameVectorConfig, storedVectorConfig } from './vector-schema.js'

export type IndexStoreOptions = {
  /** Path of the SQLite file; the writer creates it and its directory when missing. */
  dbPath: string
  /** Open an existing index read-only (search workers); its vector config is read from it. */
  readonly?: boolean
  /**
   * How vectors should be stored (writer only; null: no embeddings). A function is asked
   * at each use: the layout may change while the service runs (an embedding provider bound
   * late), and this index then stores no vectors until a rebuild of the new layout replaces it.
   */
  vectors?: VectorConfig | (() => VectorConfig)
  /** Loads sqlite-vec into a connection; called when a vector table needs it. */
  loadVectorExtension?: (db: Db) => void
  /** A rebuild's new index: no WAL and no syncs until closeForSwap (database.ts). */
  scratch?: boolean
  /**
   * Checkpoints the write-ahead log off the main thread (the search workers,
   * wal-checkpoint.ts); the writer then never checkpoints inside a commit. Without it,
   * SQLite's commits do (every 1,000 pages).
   */
  checkpoint?: (dbPath: string) => Promise<unknown>
  /**
   * Chunks from which vector searches without filters pre-select their candidates by a
   * quantised copy of the vectors held in memory (quantized-vectors.ts, sqlite-vec only);
   * 0 or absent: never.
   */
  quantizedFrom?: number
  /** Which terms get impact lists (impact-lists.ts; default LIST_*): tests lower them. */
  impactLists?: ImpactListOptions
  /** Which terms get rare lists, from which index size (rare-lists.ts; default RARE_*): tests lower them. */
  rareLists?: RareListOptions
}

/** Deletes an index file with its WAL, shared-memory and journal files; whether any existed. */
export function removeIndexFiles(dbPath: string): boolean {
  let found = false
  for (const suffix of ['', '-wal', '-shm', '-journal']) {
    const file = `${dbPath}${suffix}`
    found = fs.existsSync(file) || found
    fs.rmSync(file, { force: true })
  }
  return found
}

export type Opened = {
  db: Db
  /** How the vectors in this file are stored. */
  vectors: VectorConfig
  /** Whether new vectors are written (the file's layout is the configured one). */
  storesVectors: boolean
}

/** The vector layout the writer should store now. */
export const wantedVectors = (opts: IndexStoreOptions): VectorConfig =>
  typeof opts.vectors === 'function' ? opts.vectors() : (opts.vectors ?? null)

/**
 * Opens the writer connection. A new or empty index takes the configured vector layout. An
 * index holding chunks under another layout keeps it untouched (searches go on reading it
 * by keyword) and stores no new vectors until a rebuild replaces it. An index of another
 * schema version, whose vector table cannot be opened, or that is not a database at all, is
 * deleted and created anew: the index is a cache of the workspace files.
 */
export function openWriter(opts: IndexStoreOptions): Opened & { recreated: boolean } {
  fs.mkdirSync(path.dirname(opts.dbPath), { recursive: true })
  const wanted = wantedVectors(opts)
  for (let attempt = 0; ; attempt++) {
    let db: Db
    try {
      db = openDatabase(opts.dbPath, {
        scratch: opts.scratch ?? false,
        autoCheckpoint: !opts.checkpoint,
        walLimitBytes: createVolumeRoom(path.dirname(opts.dbPath)).walCheckpointBytes(),
      })
    } catch (err) {
      // A file that is not an SQLite database (torn, overwritten) is deleted like one of
      // another version; any other failure (permissions, a full disk) is not ours to fix.
      if (attempt > 0 || !isUnreadableDatabase(err)) throw err
      removeIndexFiles(opts.dbPath)
      continue
    }
    try {
      if (!ensureSchema(db)) throw new Error('index written by another schema version')
      const stored = storedVectorConfig(db)
      const empty = db.prepare('SELECT 1 FROM files LIMIT 1').get() === undefined
      const adopt = sameVectorConfig(stored, wanted) || empty
      const vectors = adopt ? wanted : stored
      if (vectors?.backend === 'sqlite-vec') opts.loadVectorExtension?.(db)
      if (adopt) ensureVectorTable(db, wanted)
      return { db, vectors, storesVectors: adopt, recreated: attempt > 0 }
    } catch (err) {
      db.close()
      if (attempt > 0) throw err
      removeIndexFiles(opts.dbPath)
    }
  }
}

const isUnreadableDatabase = (err: unknown): boolean => {
  const code = (err as { code?: unknown } | null)?.code
  return code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT'
}

export function openReader(opts: IndexStoreOptions): Opened {
  const db = openDatabase(opts.dbPath, { readonly: true })
  checkSchema(db)
  const vectors = storedVectorConfig(db)
  if (vectors?.backend === 'sqlite-vec') opts.loadVectorExtension?.(db)
  return { db, vectors, storesVectors: false }
}
