/**
 * Index schema. The index is a disposable cache of the workspace files, so there are no
 * migrations: a database whose `user_version` differs from SCHEMA_VERSION is deleted and
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

export const SCHEMA_VERSION = 4

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
  indexed_at_ms INTEGER NOT NULL,
  -- order of the file read this row came from; an older read never overwrites a newer one
  read_seq INTEGER NOT NULL
) STRICT;

-- files deleted from the index, with the read that found them gone (see files.read_seq)
CREATE TABLE IF NOT EXISTS deleted_files (
  path TEXT PRIMARY KEY,
  read_seq INTEGER NOT NULL
) STRICT;

CREATE TABLE IF NOT EXISTS chunks (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL REFERENCES files(path) ON DELETE CASCADE,
  source TEXT NOT NULL,
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  content_hash TEXT NOT NULL,
  text TEXT NOT NULL,
  -- enclosing headings, outermost first, joined with " / " (context for embeddings)
  headings TEXT NOT NULL,
  body_terms TEXT NOT NULL,
  heading_terms TEXT NOT NULL,
  token_count INTEGER NOT NULL,
  -- 1 once the chunk's vector is stored; 0 while it waits for the embedding provider
  has_vector INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE INDEX IF NOT EXISTS chunks_by_path ON chunks(path);
CREATE INDEX IF NOT EXISTS chunks_without_vector ON chunks(id) WHERE has_vector = 0;

CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
  body_terms, heading_terms,
  content = 'chunks', content_rowid = 'id',
  tokenize = "${FTS_TOKENIZER}"
);

CREATE VIRTUAL TABLE IF NOT EXISTS chunks_vocab USING fts5vocab(chunks_fts, 'row');
`

/**
 * Creates the schema in a new database. Returns false for a database written by another
 * schema version: the caller deletes the file and starts over (the index is a cache).
 */
export function ensureSchema(db: Db): boolean {
  const version = db.pragma('user_version', { simple: true }) as number
  if (version !== 0 && version !== SCHEMA_VERSION) return false
  db.transaction(() => {
    db.exec(DDL)
    db.pragma(`user_version = ${SCHEMA_VERSION}`)
  })()
  return true
}

/** For read-only connections: the index must already have this schema version. */
export function checkSchema(db: Db): void {
  const version = db.pragma('user_version', { simple: true }) as number
  if (version !== SCHEMA_VERSION) {
    throw new Error(`index schema version ${version} is not ${SCHEMA_VERSION}; the writer must open it first`)
  }
}
