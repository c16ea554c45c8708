/**
 * The storage side of the composition root: which engine holds the indexes (SQLite files in
 * MNEMO_DATA_DIR, or PostgreSQL when MNEMO_DATABASE_URL is set, SPEC §10), given the search
 * pipeline's searches to read them with. The engine hands out each space's reader
 * (StorageEngine.readerFor): SQLite reads on threads of its own (index-thread.ts is their
 * script), PostgreSQL through its connection pool from the main thread.
 */
import type { Config } from '../config/config.js'
import { createReaderOps } from '../search/index-reader.js'
import { MAIN_AGENT } from '../shared/agent-id.js'
import type { Logger } from '../shared/logger.js'
import type { StorageEngine, VectorConfig } from '../store/port.js'
import type { ImpactListOptions } from '../store/sqlite/impact-lists.js'
import type { RareListOptions } from '../store/sqlite/rare-lists.js'
import type { Db } from '../store/sqlite/database.js'
import { createSqliteEngine } from '../store/sqlite/engine.js'

export type StorageDeps = {
  config: Pick<Config, 'index' | 'search' | 'agents' | 'embedding'>
  log: Logger
  /** The vector layout indexes should store now (embedding.ts), read at each use. */
  vectors: () => VectorConfig
  loadVectorExtension: (db: Db) => void
  /** The read threads' script, when not index-thread next to this module (tests start a bundled one). */
  readerWorkerEntry?: URL | undefined
  /** Whether no search has come for a while (ReadThreadsDeps.searchesQuiet). */
  searchesQuiet: () => boolean
  /** Whether searches come together (shared/foreground.ts together): SQLite runs none alone then. */
  searchesTogether: () => boolean
  /** Which terms get impact lists on SQLite (default: impact-lists.ts LIST_*). */
  impactLists?: ImpactListOptions | undefined
  /** Which terms get rare lists on SQLite, from which size (default: rare-lists.ts RARE_*). */
  rareLists?: RareListOptions | undefined
}

/** index-thread next to this module: TypeScript under tsx (dev, tests), JS when built. */
const threadEntry = (): URL =>
  new URL(import.meta.url.endsWith('.ts') ? './index-thread.ts' : './index-thread.js', import.meta.url)

export async function createStorage(deps: StorageDeps): Promise<StorageEngine> {
  const { config, log } = deps
  const database = config.index.database
  if (database) {
    // Imported only for PostgreSQL: pg and its modules are not loaded by a SQLite start.
    const { createPostgresEngine } = await import('../store/postgres/engine.js')
    return createPostgresEngine({
      url: database.url,
      schema: database.schema,
      poolMax: database.poolMax,
      waitMs: database.waitMs,
      vectors: deps.vectors,
      vectorsWanted: config.embedding.provider !== 'none',
      readOps: createReaderOps,
      log: log.child({ module: 'postgres' }),
    })
  }
  return createSqliteEngine({
    dataDir: config.index.dataDir,
    mainDbPath: config.index.dbPath,
    mainAgent: MAIN_AGENT,
    vectors: deps.vectors,
    loadVectorExtension: deps.loadVectorExtension,
    readOps: createReaderOps,
    quantizedFrom: config.search.quantizedFrom,
    ...(deps.impactLists && { impactLists: deps.impactLists }),
    ...(deps.rareLists && { rareLists: deps.rareLists }),
    searchesTogether: deps.searchesTogether,
    // Main and the team are always open besides the agents the registry keeps.
    ...(config.search.workers > 0 && {
      threads: {
        size: config.search.workers,
        maxConnections: config.agents.maxOpen + 2,
        log: log.child({ module: 'search-pool' }),
        entry: deps.readerWorkerEntry ?? threadEntry(),
        searchesQuiet: deps.searchesQuiet,
      },
    }),
  })
}
