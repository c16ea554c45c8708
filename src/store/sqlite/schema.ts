/**
 * Index schema. The index is a disposable cache of the workspace files, so there are few
 * migrations: a database whose `user_version` differs from SCHEMA_VERSION is deleted and
 * rebuilt from the files by the next sync, unless the new version only adds tables to it
 * (UPGRADABLE).
 *
 * chunks holds each chunk's raw text and its analysed terms (body and context columns,
 * space-separated, as text/analyzer.ts emits them, with a newline between the body's lines:
 * text/line-terms.ts) with their token count. chunks_fts is an external-content FTS5 index
 * over those term columns; its tokenizer only splits on the spaces and newlines, because the
 * analyzer already folded, stemmed and segmented everything. Owning the
 * terms lets search read document frequencies from chunks_vocab and score terms outside
 * FTS5 with the same BM25 (search/bm25.ts).
 *
 * A file whose change is too big for one short transaction is written in stages
 * (staged-changes.ts): its new chunks are born under the file's next generation and its
 * replaced chunks marked dead at it, in many small transactions, and a last small one moves
 * the file to that generation. A chunk is visible while `born <= files.gen` and it is not
 * dead at or before `files.gen`; the `staging` table lists the paths where some chunk may be
 * invisible, so searches check visibility only while it has rows.
 *
 * impact_terms and impact_postings hold the impact lists of common terms (impact-lists.ts),
 * and rare_postings every posting of the rare terms (rare-lists.ts), both kept up to date in
 * the background, never by the writes themselves. term_docs holds the common terms' document
 * counts, which the writes do keep exact (term-docs.ts).
 */
import type { Db } from './database.js'

/**
 * 6: chunks.dated_ms (and the vectors' dated_ms) for time-range searches. 7: the chunk's
 * entry (entry_status, entry_observed, entry_key, entry_origin), in chunks and the vectors
 * (entry-columns.ts). 8: chunks.entry_hash (duplicates) and lookups by hash and key. 9: the
 * impact lists (impact_terms, impact_postings), added to a version 8 index as it opens. 10:
 * the common terms' document counts (term_docs), added to a version 8 or 9 index as it
 * opens; an older version opening a version 10 index rebuilds it, so no write ever leaves
 * a kept count behind. 11: body terms by line (text/line-terms.ts), in the same tables: a
 * version 8 to 10 index keeps its rows (theirs are on one line, and read either way), and an
 * older version, whose term scans split on spaces only, rebuilds a version 11 index rather
 * than count its terms wrong. 12: the rare lists (rare_postings, and chunks_instances they
 * are built from), added to a version 8 to 11 index as it opens.
 */
export const SCHEMA_VERSION = 12

/**
 * meta key: the highest chunk id an impact list covers (impact-lists.ts). A new chunk gets
 * an id above it, even where the newest chunks were deleted and SQLite would hand their ids
 * out again: a list reads the chunks written after it by id.
 */
export const ID_FLOOR_KEY = 'chunk_id_floor'

/**
 * meta key: a number that grows with every write of chunk rows (inserted or deleted, with
 * their FTS5 rows: chunk-rows.ts), the only writes that change term statistics. Readers
 * keep their statistics while it stays (term-stats.ts), through the commits of the index's
 * upkeep. Absent: 0.
 */
export const CHUNKS_VERSION_KEY = 'chunks_version'

/** Older versions this one only adds tables to: they are upgraded in place, not rebuilt. */
const UPGRADABLE = new Set([8, 9, 10, 11])

/**
 * The schema version in an index's identity (StorageEngine.schemaVersion): a new one makes
 * the next sync write every chunk again. Version 9 added tables the background fills, so an
 * upgraded index keeps its chunks.
 */
export const CHUNKS_VERSION = 8

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
  read_seq INTEGER NOT NULL,
  -- generation of the file's chunks that readers see (see born and dead in chunks)
  gen INTEGER NOT NULL DEFAULT 0
) STRICT;

-- files deleted from the index, with the read that found them gone (see files.read_seq)
CREATE TABLE IF NOT EXISTS deleted_files (
  path TEXT PRIMARY KEY,
  read_seq INTEGER NOT NULL
) STRICT;

-- No foreign key to files: a staged file's chunks are written before its row, and a deleted
-- file's chunks are removed after it, in batches (staging lists such paths).
CREATE TABLE IF NOT EXISTS chunks (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL,
  source TEXT NOT NULL,
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  -- the chunk's entry (domain/entry-meta.ts); entry_status NULL: in no entry (active). Before
  -- the texts: a search reads the status of rows it then drops, and a column after a text
  -- that spills to overflow pages costs reading those pages.
  entry_status TEXT,
  entry_observed TEXT,
  entry_key TEXT,
  entry_origin TEXT,
  -- SHA-256 of the entry's folded text (files/entry-text.ts): a write finds its duplicate by it
  entry_hash TEXT,
  content_hash TEXT NOT NULL,
  text TEXT NOT NULL,
  -- enclosing headings, outermost first, joined with " / " (context for embeddings)
  headings TEXT NOT NULL,
  body_terms TEXT NOT NULL,
  heading_terms TEXT NOT NULL,
  token_count INTEGER NOT NULL,
  -- when the chunk was written, ms since the epoch (domain/chunk-date.ts); NULL: undated
  dated_ms INTEGER,
  -- 1 once the chunk's vector is stored; 0 while it waits for the embedding provider
  has_vector INTEGER NOT NULL DEFAULT 0,
  -- the file generation the chunk joined at, and the one it leaves at (NULL: it stays)
  born INTEGER NOT NULL DEFAULT 0,
  dead INTEGER
) STRICT;

-- Paths with a staged change under way (gen: the generation being written; published: the
-- file row has moved to it and only the dead chunks remain to delete). Rows left by a
-- process that died are finished or undone when the index opens.
CREATE TABLE IF NOT EXISTS staging (
  path TEXT PRIMARY KEY,
  gen INTEGER NOT NULL,
  published INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE INDEX IF NOT EXISTS chunks_by_path ON chunks(path);
CREATE INDEX IF NOT EXISTS chunks_without_vector ON chunks(id) WHERE has_vector = 0;
-- whether a search must leave superseded entries out at all (entry-columns.ts)
CREATE INDEX IF NOT EXISTS chunks_superseded ON chunks(id) WHERE entry_status = 'superseded';
-- a write's lookups: an active entry of the same text (a duplicate), of the same key (to supersede)
CREATE INDEX IF NOT EXISTS chunks_entry_hash ON chunks(entry_hash) WHERE entry_hash IS NOT NULL;
CREATE INDEX IF NOT EXISTS chunks_entry_key ON chunks(entry_key) WHERE entry_key IS NOT NULL;

CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
  body_terms, heading_terms,
  content = 'chunks', content_rowid = 'id',
  tokenize = "${FTS_TOKENIZER}"
);

CREATE VIRTUAL TABLE IF NOT EXISTS chunks_vocab USING fts5vocab(chunks_fts, 'row');
-- Every occurrence of a term, by chunk and column: what a rare list is built from (rare-lists.ts).
-- Here, not in the connection's temp schema: a temporary one made the checkpoint that closes
-- the connection for a swap fail with SQLITE_LOCKED.
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_instances USING fts5vocab(chunks_fts, 'instance');

-- A common term's impact list (impact-lists.ts): its postings in chunks with id <= upto
-- that are not in impact_postings have an impact (against chunks of reference terms) of
-- at most floor; listed postings, lowest the least of their impacts.
CREATE TABLE IF NOT EXISTS impact_terms (
  term TEXT PRIMARY KEY,
  reference REAL NOT NULL,
  floor REAL NOT NULL,
  upto INTEGER NOT NULL,
  listed INTEGER NOT NULL,
  lowest REAL NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS impact_postings (
  term TEXT NOT NULL,
  impact REAL NOT NULL,
  chunk_id INTEGER NOT NULL,
  PRIMARY KEY (term, impact DESC, chunk_id)
) STRICT, WITHOUT ROWID;

-- A common term's document count, as chunks_vocab counts it, kept exact by every write (term-docs.ts).
CREATE TABLE IF NOT EXISTS term_docs (
  term TEXT PRIMARY KEY,
  doc INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- A rare term's postings (rare-lists.ts): every chunk with id <= upto holding it when the
-- list was written, with its counts and length, as varints (rare-postings.ts).
CREATE TABLE IF NOT EXISTS rare_postings (
  term TEXT PRIMARY KEY,
  upto INTEGER NOT NULL,
  blob BLOB NOT NULL
) STRICT, WITHOUT ROWID;
`

/**
 * Creates the schema in a new database. Returns false for a database written by another
 * schema version: the caller deletes the file and starts over (the index is a cache).
 */
export function ensureSchema(db: Db): boolean {
  const version = db.pragma('user_version', { simple: true }) as number
  if (version !== 0 && version !== SCHEMA_VERSION && !UPGRADABLE.has(version)) return false
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
