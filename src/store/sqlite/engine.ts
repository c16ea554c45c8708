/**
 * The embedded engine (the default): every space's index is a SQLite file in
 * MNEMO_DATA_DIR — main's `index.sqlite`, the team's `team.sqlite`, other agents'
 * `agents/<id>.sqlite` (agent ids are safe file names, shared/agent-id.ts). Searches read
 * them on a set of threads the engine holds (threads/read-threads.ts), each opening the
 * files read-only, or in process without them (MNEMO_SEARCH_WORKERS=0); a small index, and
 * a keyword search that comes alone, are read in process (threads/main-thread-reads.ts).
 */
import fs from 'node:fs'
import path from 'node:path'
import type { Db } from './database.js'
import { createIndexStore } from './index-store.js'
import type { IndexStoreOptions } from './open-index.js'
import { peekIndexCounts } from './index-peek.js'
import { createEmbeddingCache } from './embedding-cache.js'
import type { Logger } from '../../shared/logger.js'
import { inProcessReader, type IndexReader, type OffThread } from '../index-reader.js'
import type { ReadOpsFactory, SpaceKey, StorageEngine, VectorConfig, VectorLayout, VectorPreference } from '../port.js'
import { CHUNKS_VERSION, FTS_TOKENIZER } from './schema.js'
import type { ImpactListOptions } from './impact-lists.js'
import type { RareListOptions } from './rare-lists.js'
import { createSqliteSpace, removeStaleRebuild, type SqliteSpace } from './space.js'
import { chooseVectorBackend } from './vector-backend.js'
import { sqliteVectorLayout } from './vector-schema.js'
import { createSqliteSearchLog } from './search-log.js'
import { createReadThreads, type ReadThreadsDeps } from './threads/read-threads.js'
import { mainThreadWhenCheaper, type LoneSearches } from './threads/main-thread-reads.js'

/** File of the embedding cache inside MNEMO_DATA_DIR (kept apart so it survives rebuilds). */
export const EMBEDDING_CACHE_FILE = 'embeddings.sqlite'
/** The search log's file in MNEMO_DATA_DIR (search-log.ts). */
export const SEARCH_LOG_FILE = 'searches.sqlite'

export type SqliteEngineOptions = {
  dataDir: string
  /** Main's index file (MNEMO_DATA_DIR/index.sqlite). */
  mainDbPath: string
  /** The main agent's id: its index is `mainDbPath`. */
  mainAgent: string
  /** How vectors should be stored now (index-store.ts `vectors`). */
  vectors: () => VectorConfig
  loadVectorExtension: (db: Db) => void
  /** The searches of an index (the search pipeline's). */
  readOps: ReadOpsFactory
  /** Which terms get impact lists (impact-lists.ts; default LIST_*): tests lower them. */
  impactLists?: ImpactListOptions
  /** Which terms get rare lists, from which size (rare-lists.ts; default RARE_*): tests lower them. */
  rareLists?: RareListOptions
  /** The read threads to start; none: every read, checkpoint and job runs in process. */
  threads?: Omit<ReadThreadsDeps, 'shards' | 'quantizedFrom'> | undefined
  /** Whether searches come together (shared/foreground.ts together); absent: never. */
  searchesTogether?: () => boolean
  /** Chunks from which vector searches pre-select by quantised vectors (index-store.ts); 0 or absent: never. */
  quantizedFrom?: number | undefined
}

/** The index file of a space: main's, the team's, a user's inside an agent, or another agent's. */
function indexFile(opts: Pick<SqliteEngineOptions, 'dataDir' | 'mainAgent' | 'mainDbPath'>, key: SpaceKey): string {
  if (key.kind === 'team') return path.join(opts.dataDir, 'team.sqlite')
  if (key.kind === 'user') return path.join(opts.dataDir, 'users', key.agent, `${key.user}.sqlite`)
  if (key.id === opts.mainAgent) return opts.mainDbPath
  return path.join(opts.dataDir, 'agents', `${key.id}.sqlite`)
}

/** An index's store as the engine opens it: its vectors and lists as configured. */
function openStore(
  opts: SqliteEngineOptions,
  at: {
    dbPath: string
    scratch: boolean
    quantizedFrom: number
    checkpoint: IndexStoreOptions['checkpoint'] | null | undefined
  },
) {
  return createIndexStore({
    dbPath: at.dbPath,
    vectors: opts.vectors,
    loadVectorExtension: opts.loadVectorExtension,
    scratch: at.scratch,
    quantizedFrom: at.quantizedFrom,
    ...(at.checkpoint && { checkpoint: at.checkpoint }),
    ...(opts.impactLists && { impactLists: opts.impactLists }),
    ...(opts.rareLists && { rareLists: opts.rareLists }),
  })
}

export function createSqliteEngine(opts: SqliteEngineOptions) {
  const quantizedFrom = opts.quantizedFrom ?? 0
  const shards = () => opts.vectors()?.shards ?? 1
  const threads = opts.threads && createReadThreads({ ...opts.threads, shards, quantizedFrom })
  const threadLog = opts.threads?.log
  const lone: LoneSearches = { running: 0 }
  // The threads checkpoint the write-ahead logs, so the writer's commits never do it.
  const checkpoint =
    threads &&
    (async (dbPath: string) =>
      threads
        .checkpoint(dbPath)
        .catch((err: unknown) => threadLog?.warn({ err, dbPath }, 'checkpointing the index log failed')))
  const fileOf = (key: SpaceKey): string => indexFile(opts, key)
  const open = (dbPath: string, scratch: boolean) => openStore(opts, { dbPath, scratch, quantizedFrom, checkpoint })

  const engine = {
    kind: 'sqlite' as const,
    schemaVersion: CHUNKS_VERSION,
    keywordTokenizer: `fts5 ${FTS_TOKENIZER}`,
    /** The index file of a space. */
    fileOf,
    openSpace(key: SpaceKey): SqliteSpace {
      const dbPath = fileOf(key)
      const staleRebuild = removeStaleRebuild(dbPath)
      const created = !fs.existsSync(dbPath)
      return createSqliteSpace({
        key,
        store: open(dbPath, false),
        openScratch: (p) => open(p, true),
        created,
        staleRebuild,
      })
    },
    /**
     * A space's reader: its file on the read threads, with the engine's own store as the
     * fallback when no thread can answer; in process where a thread's round trip would cost
     * more than it saves (a small index, a lone keyword search: main-thread-reads.ts).
     */
    readerFor(store: SqliteSpace): IndexReader {
      const local = opts.readOps(store)
      if (!threads) return inProcessReader(local)
      return mainThreadWhenCheaper(threads.forIndex(fileOf(store.key), local), local, {
        chunks: () => store.corpusStats().rows,
        searching: () => threads.searching() || opts.searchesTogether?.() === true,
        lone,
      })
    },
    /** A space's jobs on the read threads, in one queue per index so agents' syncs take turns. */
    offThreadFor(store: SqliteSpace): OffThread | undefined {
      if (!threads) return undefined
      const queue = `${fileOf(store.key)}#jobs`
      return (job, args, local, background) => threads.run(queue, job, args, local, background)
    },
    locate: fileOf,
    // Open files answer as long as the process runs; a file that cannot be read fails its space.
    health: async () => ({ ok: true }),
    onRecovered: () => () => undefined,
    peekCounts: (key: SpaceKey) => peekIndexCounts(fileOf(key)),
    /** Deletes the index file with its write-ahead log and shared memory (the space is closed). */
    async dropSpace(key: SpaceKey) {
      const dbPath = fileOf(key)
      for (const suffix of ['', '-wal', '-shm']) await fs.promises.rm(`${dbPath}${suffix}`, { force: true })
    },
    vectorLayout: (preference: VectorPreference, log: Logger): VectorLayout =>
      sqliteVectorLayout(chooseVectorBackend(preference, opts.loadVectorExtension, log)),
    openSearchLog: () => createSqliteSearchLog({ dbPath: path.join(opts.dataDir, SEARCH_LOG_FILE) }),
    openEmbeddingCache: ({ maxEntries, now }: { maxEntries: number; now?: (() => number) | undefined }) =>
      createEmbeddingCache({
        dbPath: path.join(opts.dataDir, EMBEDDING_CACHE_FILE),
        maxEntries,
        ...(now && { now }),
      }),
    releaseMemory: () => {
      threads?.renew()
    },
    close: async () => {
      await threads?.close()
    },
  }
  return engine satisfies StorageEngine<SqliteSpace>
}

export type SqliteEngine = ReturnType<typeof createSqliteEngine>
