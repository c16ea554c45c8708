/**
 * The embedded engine (the default): every space's index is a SQLite file in
 * MNEMO_DATA_DIR — main's `index.sqlite`, the team's `team.sqlite`, other agents'
 * `agents/<id>.sqlite` (agent ids are safe file names, shared/agent-id.ts).
 */
import fs from 'node:fs'
import path from 'node:path'
import type { Db } from './database.js'
import { createIndexStore } from './index-store.js'
import { peekIndexCounts } from './index-peek.js'
import { createEmbeddingCache } from './embedding-cache.js'
import type { Logger } from '../../shared/logger.js'
import type { SpaceKey, StorageEngine, VectorConfig, VectorLayout, VectorPreference } from '../port.js'
import { FTS_TOKENIZER, SCHEMA_VERSION } from './schema.js'
import { createSqliteSpace, removeStaleRebuild, type SqliteSpace } from './space.js'
import { chooseVectorBackend } from './vector-backend.js'
import { VEC0_CHUNK_SIZE, VECTOR_SHARDS } from './vector-schema.js'
import { createSqliteSearchLog } from './search-log.js'

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
  /** Checkpoints an index's write-ahead log off the main thread (the search workers), if any. */
  checkpoint?: ((dbPath: string) => Promise<unknown>) | undefined
}

export function createSqliteEngine(opts: SqliteEngineOptions) {
  const fileOf = (key: SpaceKey): string => {
    if (key.kind === 'team') return path.join(opts.dataDir, 'team.sqlite')
    if (key.kind === 'user') return path.join(opts.dataDir, 'users', key.agent, `${key.user}.sqlite`)
    if (key.id === opts.mainAgent) return opts.mainDbPath
    return path.join(opts.dataDir, 'agents', `${key.id}.sqlite`)
  }
  const open = (dbPath: string, scratch: boolean) =>
    createIndexStore({
      dbPath,
      vectors: opts.vectors,
      loadVectorExtension: opts.loadVectorExtension,
      scratch,
      ...(opts.checkpoint && { checkpoint: opts.checkpoint }),
    })

  const engine = {
    kind: 'sqlite' as const,
    schemaVersion: SCHEMA_VERSION,
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
    vectorLayout(preference: VectorPreference, log: Logger): VectorLayout {
      const backend = chooseVectorBackend(preference, opts.loadVectorExtension, log)
      return { backend, shards: VECTOR_SHARDS, ...(backend === 'sqlite-vec' && { chunkSize: VEC0_CHUNK_SIZE }) }
    },
    openSearchLog: () => createSqliteSearchLog({ dbPath: path.join(opts.dataDir, SEARCH_LOG_FILE) }),
    openEmbeddingCache: ({ maxEntries, now }: { maxEntries: number; now?: (() => number) | undefined }) =>
      createEmbeddingCache({
        dbPath: path.join(opts.dataDir, EMBEDDING_CACHE_FILE),
        maxEntries,
        ...(now && { now }),
      }),
  }
  return engine satisfies StorageEngine<SqliteSpace>
}

export type SqliteEngine = ReturnType<typeof createSqliteEngine>
