/**
 * The index store owns the live SQLite connection. Services call its methods and never hold
 * a raw connection, so the connection can be replaced (rebuild swap) without re-wiring them.
 */
import fs from 'node:fs'
import path from 'node:path'
import { createChunksRepo, type ChunksRepo } from './chunks-repo.js'
import { openDatabase, type Db } from './database.js'
import { ensureSchema } from './schema.js'

export type IndexStoreOptions = {
  /** Path of the SQLite file; its directory is created when missing. */
  dbPath: string
}

export function createIndexStore(opts: IndexStoreOptions) {
  fs.mkdirSync(path.dirname(opts.dbPath), { recursive: true })
  const db: Db = openDatabase(opts.dbPath)
  const { recreated } = ensureSchema(db)
  const repo: ChunksRepo = createChunksRepo(db)
  let open = true

  return {
    dbPath: opts.dbPath,
    /** True when an incompatible older index was found and emptied at open. */
    recreated,
    isOpen: () => open,
    /** Runs `fn` in one write transaction; readers on this connection see all or nothing. */
    transaction: <T>(fn: (r: ChunksRepo) => T): T => db.transaction(() => fn(repo))(),
    getFile: repo.getFile,
    listFiles: repo.listFiles,
    keyword: repo.keyword,
    counts: repo.counts,
    getMeta: repo.getMeta,
    setMeta: repo.setMeta,
    close(): void {
      if (!open) return
      open = false
      db.close()
    },
  }
}

export type IndexStore = ReturnType<typeof createIndexStore>
