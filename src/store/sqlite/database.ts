/**
 * Opens a SQLite connection with the pragmas every mnemo connection uses. WAL lets readers
 * (the search workers' read-only connections) proceed while the writer commits;
 * synchronous=NORMAL is durable across process crashes (the index is a cache of the files,
 * so losing the last commit on power loss only means a re-sync).
 *
 * A scratch database (a rebuild's new index, read by no one until it is complete, deleted
 * if the process dies) keeps its rollback journal in memory and never syncs: no WAL to
 * checkpoint, so its many large commits never stall the event loop. It is switched to WAL
 * and flushed to disk before it replaces the live index (index-store.ts).
 */
import Database from 'better-sqlite3'

export type Db = Database.Database

/** How long a connection waits for another writer's lock before SQLITE_BUSY, in ms. */
const BUSY_TIMEOUT_MS = 5000
/** Default for walLimitBytes: 4 MiB. */
const WAL_LIMIT_BYTES = 4 * 1024 * 1024

export function openDatabase(
  path: string,
  opts: {
    readonly?: boolean
    scratch?: boolean
    /** false: commits never checkpoint the log; someone else does (wal-checkpoint.ts). */
    autoCheckpoint?: boolean
    /**
     * Size the write-ahead log is cut back to when the writer starts it over after a
     * checkpoint, in bytes: without it the log keeps the size of its biggest burst, and
     * space freed by deleting files is not given back (volume-room.ts).
     */
    walLimitBytes?: number
  } = {},
): Db {
  const db = new Database(path, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false })
  if (!opts.readonly) {
    db.pragma(opts.scratch ? 'journal_mode = MEMORY' : 'journal_mode = WAL')
    db.pragma(opts.scratch ? 'synchronous = OFF' : 'synchronous = NORMAL')
    db.pragma('foreign_keys = ON')
    db.pragma(`journal_size_limit = ${Math.round(opts.walLimitBytes ?? WAL_LIMIT_BYTES)}`)
    if (opts.autoCheckpoint === false) db.pragma('wal_autocheckpoint = 0')
  }
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
  db.pragma('temp_store = MEMORY')
  // No mmap (SQLite's default): every search worker scans the whole vector table, and pages
  // mapped by each connection count toward the process's resident memory once per mapping
  // (571 MB against 180 MB at 100,000 chunks). Reads go through the OS page cache instead,
  // for about 15 % slower vector scans (BENCHMARKS.md).
  return db
}
