/**
 * The storage port: what the rest of mnemo asks of an index, whatever engine holds it
 * (SQLite in this folder; PostgreSQL per SPEC §10). Engines return MaybePromise so SQLite
 * answers synchronously inside (better-sqlite3) while a networked engine answers later;
 * callers always await. Ranking (BM25 scores, merge, rerank) is not here: engines return
 * candidates and the statistics search/ needs to score them.
 */
import type { MaybePromise } from '../shared/async.js'
import type { Logger } from '../shared/logger.js'
import type { IndexReader, OffThread, ReaderOps } from './index-reader.js'
import type { SearchLog } from './search-log-port.js'
import type {
  ChunkFilters,
  ChunkHead,
  ChunkInput,
  LocatedText,
  FileRecord,
  PendingChunk,
  Source,
} from '../domain/chunks.js'

/**
 * Where vectors live: sqlite-vec's vec0 tables, float32 blobs searched by an exact scan
 * (both SQLite), or pgvector columns (PostgreSQL).
 */
export type VectorBackend = 'sqlite-vec' | 'scan' | 'pgvector'
/**
 * How an index stores vectors; null without an embedding provider. `chunkSize`: vectors per
 * stored block of a vec0 table (sqlite-vec; absent: its default of 1,024). `floatCopy`: the
 * vectors are also kept in a plain table by chunk id (sqlite-vec), which scores pre-selected
 * candidates exactly (store/sqlite/quantized-vectors.ts).
 */
export type VectorConfig = {
  backend: VectorBackend
  dims: number
  shards: number
  chunkSize?: number
  floatCopy?: boolean
} | null

/** Where an engine keeps vectors (StorageEngine.vectorLayout). */
export type VectorLayout = { backend: VectorBackend; shards: number; chunkSize?: number; floatCopy?: boolean }
/** MNEMO_VECTOR_BACKEND: a SQLite choice; PostgreSQL takes pgvector. */
export type VectorPreference = 'auto' | 'sqlite-vec' | 'scan'

/**
 * Vectors by (provider, model, content hash), shared by every space and kept apart from
 * indexes so they survive rebuilds: an unchanged chunk is never paid for twice.
 */
export interface EmbeddingCache {
  /** Cached vectors for the hashes that have one; hits count as a use. */
  get(provider: string, model: string, hashes: readonly string[]): MaybePromise<Map<string, Float32Array>>
  put(provider: string, model: string, items: readonly { hash: string; vector: Float32Array }[]): MaybePromise<void>
  /** Entries held now. */
  size(): MaybePromise<number>
  close(): MaybePromise<void>
}

/** A chunk found near a query vector: its head and cosine distance (0 = same direction). */
export type Neighbour = ChunkHead & { distance: number }

/** Nearest-neighbour search over one index's vectors (sqlite-vec, exact scan, pgvector). */
export interface VectorIndex {
  /**
   * The `k` visible chunks nearest to `vector` that pass the filters, nearest first (ties by
   * id). `shards`: search only these shards of the index, so a search can be split over
   * several readers; engines without shards ignore it.
   */
  nearest(vector: Float32Array, k: number, filters: ChunkFilters, shards?: readonly number[]): MaybePromise<Neighbour[]>
}

/** A keyword query: analysed terms (text/analyzer.ts), never raw user text. */
export type KeywordQuery = ChunkFilters & {
  /** A chunk holding any of these terms is a candidate. */
  terms: readonly string[]
  limit: number
  /** BM25 weight of the heading column relative to the body (1.0), for the engine's ranking. */
  headingWeight: number
  /**
   * Also return each candidate's raw text (KeywordCandidate.text) when the engine reads it
   * in the same trip (PostgreSQL); an engine may leave it out, and the caller reads the texts
   * it still needs afterwards (search/index-reader.ts).
   */
  texts?: boolean | undefined
  /**
   * Each term's document frequency as the query was planned with, when known: an engine may
   * pick how it reads by them (PostgreSQL reads a term's impact list only when the term is
   * in enough chunks to have one), never what it returns.
   */
  docFreqs?: readonly number[] | undefined
}

/** A keyword candidate: its head and its analysed terms, which search/ scores. */
export type KeywordCandidate = ChunkHead & {
  /** The chunk's body terms: space-separated, a newline between lines (text/line-terms.ts). */
  bodyTerms: string
  /** The terms of its headings and file path, space-separated. */
  headingTerms: string
  /** Its raw text, when the query asked for texts and the engine read them (KeywordQuery.texts). */
  text?: string | undefined
}

/** Corpus statistics the absolute score needs (IDF): the chunk count. */
export type CorpusStats = { rows: number }

/** What a keyword query is planned and scored with (keywordStats). */
export type KeywordStats = CorpusStats & {
  /** Chunks containing each term (0 when unknown), in the order of the terms. */
  docFreqs: number[]
  /**
   * Whether a change is half written (a big file staged over many transactions): the
   * statistics then count chunks no search can see yet or any more.
   */
  partial: boolean
}

/** Keyword candidates and the statistics BM25 needs, over one index. */
export interface KeywordIndex {
  /**
   * The `limit` candidates ranked best by the engine's BM25 over the query terms, best
   * first; search/ scores them again on every term of the query.
   */
  candidates(q: KeywordQuery): MaybePromise<KeywordCandidate[]>
  /** Up to `limit` of the most recently written chunks holding any term, unranked. */
  newestMatches(q: KeywordQuery): MaybePromise<KeywordCandidate[]>
  /**
   * The statistics a query is planned and scored with, read together: one round trip on
   * PostgreSQL where three queries took a connection each.
   */
  keywordStats(terms: readonly string[]): MaybePromise<KeywordStats>
  /**
   * candidates(q) and keywordStats(statsOf) in one round trip, for an engine where each is a
   * round trip of its own (PostgreSQL): search/ plans the query with statistics it read
   * before (search/doc-freq-memo.ts) and keeps the candidates when these give the same plan.
   */
  candidatesWithStats?(q: KeywordQuery, statsOf: readonly string[]): Promise<CandidatesWithStats>
}

export type CandidatesWithStats = { rows: KeywordCandidate[]; stats: KeywordStats }

/** What a search reads from one index. */
/** Builds the searches of one index over its reads: the search pipeline's, given to engines. */
export type ReadOpsFactory = (reads: SpaceReads) => ReaderOps

export interface SpaceReads extends KeywordIndex, VectorIndex {
  /** Raw chunk texts and their body terms by id; an id deleted meanwhile is absent. */
  chunkTexts(ids: readonly number[]): MaybePromise<Map<number, LocatedText>>
}

/** A file's new content: its record and all its chunks (unchanged ones are kept as they are). */
export type FileRows = { record: FileRecord; chunks: ChunkInput[] }
/** A file gone from the workspace, as of the read numbered `readSeq`. */
export type Removal = { path: string; readSeq: number }
/** Changes of several files, written together; each file is seen whole by every reader. */
export type FileChanges = {
  replace?: readonly FileRows[]
  /** Unchanged content, new metadata (a touched mtime). */
  touch?: readonly FileRecord[]
  remove?: readonly Removal[]
}
export type StepOptions = {
  /**
   * Awaited between an engine's transactions: a yield, and for background work a wait for
   * searches in progress.
   */
  between: () => Promise<void>
  /** Stops between transactions (shutdown, a cancelled rebuild). */
  signal?: AbortSignal | undefined
  /**
   * Whether no search has come for a while (asked before each transaction): an engine whose
   * transactions hold the event loop may then make them longer, for less work in all.
   */
  quiet?: (() => boolean) | undefined
  /**
   * The writes come from a full pass, which asks each index it wrote to compact once it
   * ends: an engine may leave to that compaction what it would build anyway (PostgreSQL
   * pauses the impact lists of an index the pass found empty, docs/storage.md).
   */
  compactsAfter?: boolean | undefined
}

/** A chunk's vector to store. */
export type VectorPut = { id: number; path: string; source: Source; vector: Float32Array }

/** Files and chunks of one source. */
export type SourceCounts = { source: Source; files: number; chunks: number }

/** The write side of one index: what syncs, writes and rebuilds ask of it. */
export interface SpaceWriter {
  /**
   * Writes files' changes. A change from an older read of a file than the index holds is
   * dropped (FileRecord.readSeq), so concurrent passes may commit in any order.
   */
  applyChanges(changes: FileChanges, steps: StepOptions): Promise<void>
  /**
   * Called after a sync answered (and for a rebuild's new index before its swap): an engine
   * may reorganise what was written for faster searches, in transactions between `steps`
   * (SQLite merges FTS5 segments; PostgreSQL builds the impact lists a first index paused).
   */
  compact?(steps: StepOptions): Promise<void>
  /** Stores chunks' vectors; a chunk deleted meanwhile gets none. */
  putVectors(items: readonly VectorPut[]): MaybePromise<void>
  setMeta(key: string, value: string): MaybePromise<void>
  /** Whether the index stores vectors of the configured layout (else keyword only until rebuilt). */
  storesVectors(): boolean
  listFiles(): MaybePromise<FileRecord[]>
  getFile(path: string): MaybePromise<FileRecord | undefined>
  /** Up to `limit` chunks without a vector, oldest first. */
  pendingVectors(limit: number): MaybePromise<PendingChunk[]>
  pendingVectorCount(): MaybePromise<number>
  /**
   * Chunks a sync pass collects before it writes them in one call (default 25: a SQLite
   * transaction holds the event loop, so it stays short). A store reached over the network
   * asks for more, sharing each transaction's round trips and term counts among more files.
   */
  readonly batchChunks?: number
  /**
   * The same while no search has come for SEARCHES_QUIET_MS (default batchChunks, or 160
   * without it): a store whose cost per transaction falls with its size asks for more then;
   * once searches come again, the next batch is batchChunks.
   */
  readonly quietBatchChunks?: number
  /**
   * Whether a sync pass may prepare its next batch while this store writes the last one (a
   * store whose writes wait on a server, not on the event loop); at most one write is in
   * flight, and they land in order.
   */
  readonly overlapsWrites?: boolean
  /**
   * Work on `changes` that needs no index (PostgreSQL encodes their rows), done ahead of
   * applyChanges of the same object, which otherwise does it itself: a sync pass stages a
   * batch while the store writes the last one.
   */
  stage?(changes: FileChanges): void
}

/** Numbers file reads in the order they start (indexing/read-sequence.ts). */
export interface ReadSequence {
  /** The number of a read (or a deletion check) that starts now. */
  next(): MaybePromise<number>
}

/** Which index: an agent's (main included), one user's inside an agent, or the team's. */
export type SpaceKey = { kind: 'agent'; id: string } | { kind: 'user'; agent: string; user: string } | { kind: 'team' }

/**
 * A rebuild's new index, written beside the live one while searches read the live one:
 * begin (SpaceStore.beginRebuild) → write (it is a write target) → finish → commit | abort.
 */
export interface RebuildTarget extends SpaceWriter {
  /** Makes the new index complete and durable (merged, on disk) before the switch. */
  finish(steps: StepOptions): Promise<void>
  /**
   * Makes the new index the live one at once, for every reader: a search sees the old
   * index or the new one, never a mix. Waits until no change is half written to either.
   */
  commit(opts: RebuildCommit): Promise<void>
  /** Drops the new index; the live one serves on as it was. */
  abort(): MaybePromise<void>
}

export type RebuildCommit = {
  signal: AbortSignal
  /** Readers that hold the live index open and must let go around the switch (SQLite files). */
  readers: { suspend(): Promise<void>; resume(): void }
  /** Called at the switch, when no change is in flight: the rebuild stops being a write target. */
  detach: () => void
  /**
   * Changes being written to the live index and this one (indexing/write-targets.ts): a
   * SQLite swap waits until none is, or one would reach the old live index and miss the new
   * one. PostgreSQL's need not: a write names the index it writes (the live one as of its
   * transaction, or this one by id), and both take the same change again harmlessly.
   */
  writes: { idle(): boolean; whenIdle(): Promise<void> }
  /** Test hook awaited just before the switch. */
  onSwitch?: (() => Promise<void>) | undefined
}

/** Active entries looked up by their text's hashes (files/entry-text.ts), or by their key. */
export type EntryQuery = { hashes: readonly string[] } | { key: string }
/**
 * Where entries were found: a file, from the first line of their chunks to the last, per
 * hash (`hash`: the one matched, null for a lookup by key).
 */
export type EntryLocation = { path: string; startLine: number; endLine: number; hash: string | null }

/** One space's index as the services use it. */
export interface SpaceStore extends SpaceWriter, SpaceReads {
  readonly key: SpaceKey
  /** The index knew no file when opened (new, or recreated): its first sync is awaited. */
  readonly fresh: boolean
  /** What opening found and repaired, for the log. */
  readonly repaired: { recreated: boolean; staleRebuild: boolean }
  /** Settles changes a process that died left half-way; resolves with how many. */
  readonly recovered: Promise<number>
  isOpen(): boolean
  /**
   * Where the active entries with these text hashes (duplicates of a write) or this key (to
   * supersede) are: per file (and hash), the lines of their chunks.
   */
  findEntries(q: EntryQuery): MaybePromise<EntryLocation[]>
  getMeta(key: string): MaybePromise<string | undefined>
  counts(): MaybePromise<SourceCounts[]>
  /** The order of file reads for this index. */
  readSequence(): MaybePromise<ReadSequence>
  /**
   * Runs `fn` holding the space's lock on a file across every process that shares the
   * engine (a write of the file); one process per SQLite data dir needs none.
   */
  withPathLock<T>(path: string, fn: () => Promise<T>): Promise<T>
  /**
   * Claims the space's full sync for this process: the function that gives it back, or
   * null while another process syncs the space (the sync is then skipped: that one writes
   * what it finds into the same index).
   */
  claimSync(): MaybePromise<(() => Promise<void>) | null>
  beginRebuild(): MaybePromise<RebuildTarget>
  close(): MaybePromise<void>
}

export type EngineHealth = { ok: boolean; error?: string }

/** Where indexes live: SQLite files in MNEMO_DATA_DIR, or one PostgreSQL database. */
export interface StorageEngine<S extends SpaceStore = SpaceStore> {
  readonly kind: 'sqlite' | 'postgres'
  /** Version of the engine's schema: part of every index's identity (indexing/index-identity.ts). */
  readonly schemaVersion: number
  /** How keyword terms are indexed (GET /index keywordTokenizer). */
  readonly keywordTokenizer: string
  /** Opens a space's index, creating it when missing. */
  openSpace(key: SpaceKey): MaybePromise<S>
  /**
   * The reader searches use for an open space's index (index-reader.ts): SQLite's read
   * threads, or in process (PostgreSQL, where the database does the work).
   */
  readerFor(store: S): IndexReader
  /** Where a space's heavy work can run off the main thread (SQLite's read threads); undefined: nowhere. */
  offThreadFor(store: S): OffThread | undefined
  /** Where a space's index is, for messages (a file path, a database and key). */
  locate(key: SpaceKey): string
  /** Files and chunks of a space's index without opening it (zeros when there is none). */
  peekCounts(key: SpaceKey): MaybePromise<{ files: number; chunks: number }>
  /**
   * Deletes a space's index (a user's memory deleted): the space must be closed in this
   * process. Searches see nothing of it afterwards; a later open starts an empty one.
   */
  dropSpace(key: SpaceKey): Promise<void>
  /**
   * Where vectors will live given MNEMO_VECTOR_BACKEND, and how many shards searches may
   * split them into; throws a start-up error when the preference cannot be had.
   */
  vectorLayout(preference: VectorPreference, log: Logger): VectorLayout
  /** The embedding cache, holding at most `maxEntries` (least recently used go first). */
  openEmbeddingCache(opts: { maxEntries: number; now?: (() => number) | undefined }): EmbeddingCache
  /** The search log (SPEC §12): a file of its own in SQLite, a table in PostgreSQL. */
  openSearchLog(): SearchLog
  /** Whether the engine answers now (GET /ready, GET /index). */
  health(): Promise<EngineHealth>
  /**
   * Calls `listener` each time the engine answers again after it was out of reach (a
   * database restart); returns the unsubscribe. An engine in this process's files never is.
   */
  onRecovered(listener: () => void): () => void
  /**
   * Gives back what big indexing work left in the engine's own threads, once that work is
   * over (shared/memory-reclaimer.ts): SQLite renews the read threads that prepared files.
   * Optional: PostgreSQL's work happens in the database.
   */
  releaseMemory?(): void
  /** Stops the engine's threads or connections (every space is closed). */
  close(): Promise<void>
}
