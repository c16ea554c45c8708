/**
 * The embedding cache (store/port.ts) in its own SQLite file next to the indexes, so it
 * survives index rebuilds and swaps. Bounded: past `maxEntries`, the least recently used
 * are deleted.
 */
import type { Db } from './database.js'
import { openDatabase } from './database.js'

/** Deleting the oldest entries in steps, so one prune does not hold the lock for long. */
const PRUNE_STEP = 10_000

const DDL = `
CREATE TABLE IF NOT EXISTS embeddings (
  provider TEXT NOT NULL,
  model TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  vector BLOB NOT NULL,
  used_at_ms INTEGER NOT NULL,
  PRIMARY KEY (provider, model, content_hash)
) STRICT;
CREATE INDEX IF NOT EXISTS embeddings_by_use ON embeddings(used_at_ms);
`

export type EmbeddingCacheOptions = { dbPath: string; maxEntries: number; now?: () => number }

export function createEmbeddingCache(opts: EmbeddingCacheOptions) {
  const db: Db = openDatabase(opts.dbPath)
  db.exec(DDL)
  const now = opts.now ?? Date.now
  const stmt = {
    get: db.prepare<[string, string, string], { vector: Buffer }>(
      'SELECT vector FROM embeddings WHERE provider = ? AND model = ? AND content_hash = ?',
    ),
    touch: db.prepare('UPDATE embeddings SET used_at_ms = ? WHERE provider = ? AND model = ? AND content_hash = ?'),
    put: db.prepare(
      `INSERT INTO embeddings (provider, model, content_hash, vector, used_at_ms) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (provider, model, content_hash) DO UPDATE SET vector = excluded.vector, used_at_ms = excluded.used_at_ms`,
    ),
    count: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM embeddings'),
    // `LIMIT +?`: not compiled again at each run, as a bare parameter would be (search-repo.ts).
    pruneOldest: db.prepare(
      'DELETE FROM embeddings WHERE rowid IN (SELECT rowid FROM embeddings ORDER BY used_at_ms LIMIT +?)',
    ),
  }
  let entries = stmt.count.get()?.n ?? 0

  return {
    /** Cached vectors for the hashes that have one; hits count as a use. */
    get(provider: string, model: string, hashes: readonly string[]): Map<string, Float32Array> {
      const found = new Map<string, Float32Array>()
      const at = now()
      db.transaction(() => {
        for (const hash of hashes) {
          const row = stmt.get.get(provider, model, hash)
          if (!row) continue
          found.set(
            hash,
            new Float32Array(
              row.vector.buffer.slice(row.vector.byteOffset, row.vector.byteOffset + row.vector.byteLength),
            ),
          )
          stmt.touch.run(at, provider, model, hash)
        }
      })()
      return found
    },
    put(provider: string, model: string, items: readonly { hash: string; vector: Float32Array }[]): void {
      const at = now()
      db.transaction(() => {
        for (const { hash, vector } of items) {
          stmt.put.run(provider, model, hash, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength), at)
        }
      })()
      entries = stmt.count.get()?.n ?? 0
      while (entries > opts.maxEntries) {
        stmt.pruneOldest.run(Math.min(PRUNE_STEP, entries - opts.maxEntries))
        entries = stmt.count.get()?.n ?? 0
      }
    },
    size: (): number => entries,
    close(): void {
      db.close()
    },
  }
}

/** The SQLite cache answers synchronously; it is the port's EmbeddingCache. */
export type SqliteEmbeddingCache = ReturnType<typeof createEmbeddingCache>
