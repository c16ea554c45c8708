/**
 * The storage side of the composition root: which engine holds the indexes (SQLite files in
 * MNEMO_DATA_DIR, or PostgreSQL when MNEMO_DATABASE_URL is set, SPEC §10) and how searches
 * read them. SQLite indexes are read by a pool of worker threads, each opening the files
 * read-only; PostgreSQL is read through its connection pool from the main thread (the
 * database does the work, the event loop only waits).
 */
import type { Config } from './config/config.js'
import type { PrepareElsewhere } from './indexing/prepare-file.js'
import { createLocalReader, createReaderOps, type IndexReader } from './search/index-reader.js'
import { createReaderPool, type ReaderPool } from './search/reader-pool.js'
import { smallOnMainThread } from './search/small-index-reader.js'
import { MAIN_AGENT } from './shared/agent-id.js'
import type { Logger } from './shared/logger.js'
import type { SpaceStore, StorageEngine, VectorConfig } from './store/port.js'
import type { Db } from './store/sqlite/database.js'
import { createSqliteEngine } from './store/sqlite/engine.js'

export type StorageDeps = {
  config: Pick<Config, 'index' | 'search' | 'agents' | 'embedding'>
  log: Logger
  /** The vector layout indexes should store now (embedding-wiring.ts), read at each use. */
  vectors: () => VectorConfig
  loadVectorExtension: (db: Db) => void
  /** The search workers' script, when not the one next to the reader pool (ReaderPoolDeps.workerEntry). */
  readerWorkerEntry?: URL | undefined
  /** Whether no search has come for a while (ReaderPoolDeps.searchesQuiet). */
  searchesQuiet: () => boolean
}

export type Storage = {
  engine: StorageEngine
  /** Starts the readers once the vector shards are known (embedding-wiring.ts). */
  startReaders(shards: number): void
  /** The reader searches use for a space's index. */
  readerFor(store: SpaceStore): IndexReader
  /** Where a space's indexer prepares big new files off the main thread (none: it does so itself). */
  preparerFor(store: SpaceStore): PrepareElsewhere | undefined
  close(): Promise<void>
}

export async function createStorage(deps: StorageDeps): Promise<Storage> {
  const { config, log } = deps
  const database = config.index.database
  if (database) {
    // Imported only for PostgreSQL: pg and its modules are not loaded by a SQLite start.
    const { createPostgresEngine } = await import('./store/postgres/engine.js')
    const engine = await createPostgresEngine({
      url: database.url,
      schema: database.schema,
      poolMax: database.poolMax,
      waitMs: database.waitMs,
      vectors: deps.vectors,
      vectorsWanted: config.embedding.provider !== 'none',
      log: log.child({ module: 'postgres' }),
    })
    return {
      engine,
      startReaders: () => undefined,
      readerFor: (store) => createLocalReader(store),
      preparerFor: () => undefined,
      close: () => engine.close(),
    }
  }
  let pool: ReaderPool | null = null
  const workers = config.search.workers > 0
  const engine = createSqliteEngine({
    dataDir: config.index.dataDir,
    mainDbPath: config.index.dbPath,
    mainAgent: MAIN_AGENT,
    vectors: deps.vectors,
    loadVectorExtension: deps.loadVectorExtension,
    ...(workers && {
      checkpoint: async (dbPath: string) =>
        pool
          ?.checkpoint(dbPath)
          .catch((err: unknown) => log.warn({ err, dbPath }, 'checkpointing the index log failed')),
    }),
  })
  return {
    engine,
    startReaders(shards) {
      if (!workers || pool) return
      // Main and the team are always open besides the agents the registry keeps.
      pool = createReaderPool({
        size: config.search.workers,
        shards,
        maxConnections: config.agents.maxOpen + 2,
        log: log.child({ module: 'search-pool' }),
        workerEntry: deps.readerWorkerEntry,
        searchesQuiet: deps.searchesQuiet,
      })
    },
    // Workers open a space's index file read-only (a small index is read here: a worker's
    // round trip would cost more than its search); without them, reads run here.
    readerFor(store) {
      if (!pool) return createLocalReader(store)
      const local = createReaderOps(store)
      return smallOnMainThread(pool.forIndex(engine.fileOf(store.key), local), local, async () => {
        return (await store.corpusStats()).rows
      })
    },
    preparerFor(store) {
      const workersPool = pool
      if (!workersPool) return undefined
      const queue = `${engine.fileOf(store.key)}#prepare`
      return (input, chunking, local, background) => workersPool.prepare(queue, input, chunking, local, background)
    },
    close: async () => {
      await pool?.close()
    },
  }
}
