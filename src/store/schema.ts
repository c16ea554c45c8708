/**
 * Index schema. The index is a disposable cache of the workspace files, so there are no
 * migrations: a database whose `user_version` differs from SCHEMA_VERSION is emptied and
 * rebuilt from the files by the next sync.
 *
 * chunks_fts is contentless (the analysed terms are not stored twice; raw text lives in
 * chunks.text) with contentless_delete so a file's rows can be replaced. Its tokenizer only
 * splits on spaces in practice, because the analyzer (text/analyzer.ts) already emits
 * space-separated terms made of letters, digits, marks and `_`; FTS5 adds Porter stemming
 * and diacritic folding, applied identically to indexed and queried terms.
 */
import type { Db } from './database.js'

export const SCHEMA_VERSION = 1

export const FTS_TOKENIZER = `porter unicode61 remove_diacritics 2 tokenchars '_' categories 'L* N* Co M*'`

const DDL = `
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE TABLE IF NOT EXISTS files (
  path TEXT PRIMARY KEY,
  source TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  size_bytes INTEGER NOT NULL,
  mtime_ms REAL NOT NULL,
  line_count INTEGER NOT NULL,
  chunk_count INTEGER NOT NULL,
  indexed_at_ms INTEGER NOT NULL
) STRICT;

CREATE TABLE IF NOT EXISTS chunks (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL REFERENCES files(path) ON DELETE CASCADE,
  source TEXT NOT NULL,
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  content_hash TEXT NOT NULL,
  text TEXT NOT NULL
) STRICT;

CREATE INDEX IF NOT EXISTS chunks_by_path ON chunks(path);

CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
  body, heading,
  content = '', contentless_delete = 1,
  tokenize = "${FTS_TOKENIZER}"
);
`

const DROP = `
DROP TABLE IF EXISTS chunks_fts;
DROP TABLE IF EXISTS chunks;
DROP TABLE IF EXISTS files;
DROP TABLE IF EXISTS meta;
`

/** Creates the schema, or drops and recreates it when the version differs. Idempotent. */
export function ensureSchema(db: Db): { recreated: boolean } {
  const version = db.pragma('user_version', { simple: true }) as number
  if (version === SCHEMA_VERSION) {
    db.exec(DDL)
    return { recreated: false }
  }
  db.transaction(() => {
    if (version !== 0) db.exec(DROP)
    db.exec(DDL)
    db.pragma(`user_version = ${SCHEMA_VERSION}`)
  })()
  return { recreated: version !== 0 }
}
