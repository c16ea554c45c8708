/**
 * Composition root: the only place that calls the create* factories. It chooses providers,
 * opens the index and the embedding cache, builds the indexer, sync coordinator, reader and
 * services, and owns their lifecycle: start() runs the start-up sync, close() stops the
 * search workers, waits for the running sync and closes everything in reverse order.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { Config } from './config/config.js'
import { createFileService } from './files/file-service.js'
import { createMemoryPaths } from './files/memory-paths.js'
import { createIndexer } from './indexing/indexer.js'
import { createIndexingService } from './indexing/indexing-service.js'
import { createSyncCoordinator } from './indexing/sync-coordinator.js'
import { createVectorizer } from './indexing/vectorizer.js'
import { createEmbeddingProvider, createRerankProvider, type ProviderDeps } from './providers/create-providers.js'
import type { EmbeddingProvider, RerankProvider } from './providers/types.js'
import { createLocalReader, createReaderOps } from './search/index-reader.js'
import { createQueryEmbedder } from './search/query-embedder.js'
import { createReaderPool } from './search/reader-pool.js'
import { createSearchService } from './search/search-service.js'
import type { Logger } from './shared/logger.js'
import type { Db } from './store/database.js'
import { createEmbeddingCache } from './store/embedding-cache.js'
import { createIndexStore } from './store/index-store.js'
import { loadSqliteVec } from './store/sqlite-vec.js'
import { chooseVectorBackend } from './store/vector-backend.js'
import { VECTOR_SHARDS } from './store/vector-schema.js'

/** File of the embedding cache inside MNEMO_DATA_DIR (kept apart so it survives rebuilds). */
export const EMBEDDING_CACHE_FILE = 'embeddings.sqlite'

export type ContainerOverrides = ProviderDeps & {
  /** Wall clock in ms since the epoch (tests pin it). */
  now?: () => number
  /** Replaces the configured embedding provider (null: none). */
  embedder?: EmbeddingProvider | null
  /** Replaces the configured reranker (null: none). */
  reranker?: RerankProvider | null
  /** Replaces loading sqlite-vec (tests make it fail to exercise the fallback). */
  loadVectorExtension?: (db: Db) => void
}

export function createContainer(config: Config, log: Logger, overrides: ContainerOverrides = {}) {
  const rootReal = fs.realpathSync(config.workspace.root)
  const embedder =
    overrides.embedder !== undefined ? overrides.embedder : createEmbeddingProvider(config.embedding, overrides)
  const reranker =
    overrides.reranker !== undefined
      ? overrides.reranker
      : createRerankProvider(config.rerank, config.embedding.allowDownload, overrides)
  const loadVectorExtension = overrides.loadVectorExtension ?? loadSqliteVec
  const vectors = embedder && {
    backend: chooseVectorBackend(config.embedding.vectorBackend, loadVectorExtension, log),
    dims: embedder.dims,
    shards: VECTOR_SHARDS,
  }
  const embedding = embedder &&
    vectors && { provider: embedder.id, model: embedder.model, dims: embedder.dims, backend: vectors.backend }
  const store = createIndexStore({ dbPath: config.index.dbPath, vectors, loadVectorExtension })
  if (store.recreated)
    log.warn('the index was written by another version: it was deleted and will be rebuilt from the files')
  const cache = embedder?.cacheable
    ? createEmbeddingCache({
        dbPath: path.join(config.index.dataDir, EMBEDDING_CACHE_FILE),
        maxEntries: config.embedding.cacheMaxEntries,
        ...(overrides.now && { now: overrides.now }),
      })
    : null
  const memoryPaths = createMemoryPaths(config.workspace.extraPaths)
  const indexer = createIndexer({
    store,
    rootReal,
    memoryPaths,
    chunking: config.chunking,
    maxFileBytes: config.index.maxFileBytes,
    vectorizer:
      embedder &&
      createVectorizer({
        provider: embedder,
        cache,
        batchSize: config.embedding.batchSize,
        batchTokens: config.embedding.batchTokens,
        concurrency: config.embedding.concurrency,
      }),
    embedding,
    log: log.child({ module: 'indexer' }),
    ...(overrides.now && { now: overrides.now }),
  })
  const coordinator = createSyncCoordinator({ indexer, log: log.child({ module: 'sync' }) })
  const reader =
    config.search.workers > 0
      ? createReaderPool({
          dbPath: config.index.dbPath,
          size: config.search.workers,
          shards: vectors?.shards ?? 1,
          fallback: createReaderOps(store),
          log: log.child({ module: 'search-pool' }),
        })
      : createLocalReader(store)
  const services = {
    search: createSearchService({
      reader,
      embedder: embedder && createQueryEmbedder({ provider: embedder, timeoutMs: config.embedding.queryTimeoutMs }),
      reranker,
      settings: config.search,
      rerank: config.rerank,
      log: log.child({ module: 'search' }),
    }),
    files: createFileService({ rootReal, memoryPaths, store, maxFileBytes: config.index.maxFileBytes }),
    indexing: createIndexingService({ store, coordinator, embedding, cache }),
  }

  return {
    services,
    /** Starts background work: the start-up sync (not awaited; /ready reports it). */
    start(): void {
      if (config.index.indexOnStart) void coordinator.request({ full: false, reason: 'startup' })
    },
    /** Stops the search workers, waits for the running sync, then closes everything. Idempotent. */
    async close(): Promise<void> {
      await reader.close()
      await coordinator.idle()
      store.close()
      cache?.close()
      await embedder?.close?.()
      await reranker?.close?.()
    },
  }
}

export type Container = ReturnType<typeof createContainer>
