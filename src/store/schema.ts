/**
 * Index schema. The index is a disposable cache of the workspace files, so there are no
 * migrations: a database whose `user_version` differs from SCHEMA_VERSION is emptied and
 * rebuilt from the files by the next sync.
 *
 * chunks holds each chunk's raw text and its analysed terms (body and context columns,
 * space-separated, as text/analyzer.ts emits them) with their token count. chunks_fts is an
 * external-content FTS5 index over those term columns; its tokenizer only splits on the
 * spaces, because the analyzer already folded, stemmed and segmented everything. Owning the
 * terms lets search read document frequencies from chunks_vocab and score terms outside
 * FTS5 with the same BM25 (search/bm25.ts).
 */
import type { Db } from './database.js'

export const SCHEMA_VERSION = 2

export const FTS_TOKENIZER = `unicode61 remove_diacritics 0 tokenchars '_' categories 'L* N* Co M*'`

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
  text TEXT NOT NULL,
  body_terms TEXT NOT NULL,
  heading_terms TEXT NOT NULL,
  token_count INTEGER NOT NULL
) STRICT;

CREATE INDEX IF NOT EXISTS chunks_by_path ON chunks(path);

CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
  body_terms, heading_terms,
  content = 'chunks', content_rowid = 'id',
  tokenize = "${FTS_TOKENIZER}"
);

CREATE VIRTUAL TABLE IF NOT EXISTS chunks_vocab USING fts5vocab(chunks_fts, 'row');
`

const DROP = `
DROP TABLE IF EXISTS chunks_vocab;
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

/** For read-only connections: the index must already have this schema version. */
export function checkSchema(db: Db): { recreated: false } {
  const version = db.pragma('user_version', { simple: true }) as number
  if (version !== SCHEMA_VERSION) {
    throw new Error(`index schema version ${version} is not ${SCHEMA_VERSION}; the writer must open it first`)
  }
  return { recreated: false }
}
