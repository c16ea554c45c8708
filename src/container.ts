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
import { removeStaleTempFiles } from './files/file-writer.js'
import { createFlushService } from './files/flush-service.js'
import { createWriteService } from './files/write-service.js'
import { createMemoryPaths, MEMORY_DIR } from './files/memory-paths.js'
import { indexIdentity } from './indexing/index-identity.js'
import { createIndexer } from './indexing/indexer.js'
import { createPathIndexQueue } from './indexing/path-index-queue.js'
import { createReadSequence } from './indexing/read-sequence.js'
import { createRebuilder, removeStaleRebuild, type RebuildStage } from './indexing/rebuild.js'
import { createSyncWorker } from './indexing/sync-worker.js'
import { watchSources, type WatcherFactory } from './indexing/watcher.js'
import { createWriteTargets } from './indexing/write-targets.js'
import { createIndexingService } from './indexing/indexing-service.js'
import { createSyncCoordinator } from './indexing/sync-coordinator.js'
import { createVectorizer } from './indexing/vectorizer.js'
import { createEmbeddingProvider, createRerankProvider, type ProviderDeps } from './providers/create-providers.js'
import type { EmbeddingProvider, RerankProvider } from './providers/types.js'
import { createLocalReader, createReaderOps } from './search/index-reader.js'
import { createQueryEmbedder } from './search/query-embedder.js'
import { createReaderPool } from './search/reader-pool.js'
import { createSearchService } from './search/search-service.js'
import { createForeground } from './shared/foreground.js'
import { createInFlight } from './shared/in-flight.js'
import { createKeyedMutex } from './shared/keyed-mutex.js'
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
  /** Awaited at each rebuild stage (tests inject failures or hold a rebuild open). */
  onRebuildStage?: (stage: RebuildStage) => Promise<void>
  /** Replaces the chokidar watcher (tests make it fail). */
  watcherFactory?: WatcherFactory
}

/** The sessions folder as a real path, created when missing; null when none is configured. */
function sessionsReal(dir: string | undefined): string | null {
  if (dir === undefined) return null
  fs.mkdirSync(dir, { recursive: true })
  return fs.realpathSync(dir)
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
  if (removeStaleRebuild(config.index.dbPath)) {
    log.warn('removed the half-built index of a rebuild that was interrupted; the previous index serves')
  }
  const openIndex = (dbPath: string, scratch = false) =>
    createIndexStore({ dbPath, vectors, loadVectorExtension, scratch })
  const store = openIndex(config.index.dbPath)
  if (store.recreated)
    log.warn('the index was written by another version: it was deleted and will be rebuilt from the files')
  const identity = indexIdentity(config.chunking, embedding)
  // A new or emptied index simply takes the current settings; one built with other
  // settings keeps serving until its rebuild is swapped in.
  if (store.getMeta('identity') === undefined && store.listFiles().length === 0) {
    store.transaction((repo) => repo.setMeta('identity', identity))
  }
  const cache = embedder?.cacheable
    ? createEmbeddingCache({
        dbPath: path.join(config.index.dataDir, EMBEDDING_CACHE_FILE),
        maxEntries: config.embedding.cacheMaxEntries,
        ...(overrides.now && { now: overrides.now }),
      })
    : null
  const memoryPaths = createMemoryPaths({
    extraPaths: config.workspace.extraPaths,
    extraPathsWritable: config.workspace.extraPathsWritable,
    sessions: config.workspace.sessionsDir !== undefined,
  })
  const roots = { workspace: rootReal, sessions: sessionsReal(config.workspace.sessionsDir), paths: memoryPaths }
  const targets = createWriteTargets(store)
  const foreground = createForeground()
  const indexer = createIndexer({
    live: store,
    targets: targets.all,
    readSeq: createReadSequence(store.maxReadSeq()),
    foreground,
    roots,
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
    log: log.child({ module: 'indexer' }),
    ...(overrides.now && { now: overrides.now }),
  })
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
  const rebuilder = createRebuilder({
    live: store,
    openIndex: (dbPath) => openIndex(dbPath, true),
    indexer,
    targets,
    identity,
    readers: reader,
    foreground,
    log: log.child({ module: 'rebuild' }),
    ...(overrides.onRebuildStage && { onStage: overrides.onRebuildStage }),
  })
  const coordinator = createSyncCoordinator({
    sync: (reason, signal) => indexer.sync({ full: false, reason, signal }),
    rebuild: rebuilder.rebuild,
    stale: () => store.getMeta('identity') !== identity,
    log: log.child({ module: 'sync' }),
  })
  const syncWorker = createSyncWorker({
    ...config.sync,
    targets: { root: rootReal, scanRoots: memoryPaths.scanRoots(), sessions: roots.sessions },
    watcherFactory: overrides.watcherFactory ?? watchSources,
    requestSync: (reason) => coordinator.request({ full: false, reason }),
    log: log.child({ module: 'sync-worker' }),
  })
  const locks = createKeyedMutex()
  const pathIndex = createPathIndexQueue({
    index: (rel) => indexer.syncPaths([rel], 'write'),
    settle: (rel) => locks.run(rel, async () => undefined),
  })
  const writeDeps = {
    rootReal,
    maxFileBytes: config.index.maxFileBytes,
    locks,
    inFlight: createInFlight(),
    indexPath: pathIndex.request,
    log: log.child({ module: 'writes' }),
  }
  const services = {
    search: createSearchService({
      reader,
      embedder: embedder && createQueryEmbedder({ provider: embedder, timeoutMs: config.embedding.queryTimeoutMs }),
      vectorsReady: store.storesVectors,
      onSearch: syncWorker.onSearch,
      reranker,
      settings: config.search,
      rerank: config.rerank,
      log: log.child({ module: 'search' }),
    }),
    files: createFileService({
      rootReal,
      sessionsReal: roots.sessions,
      memoryPaths,
      store,
      maxFileBytes: config.index.maxFileBytes,
    }),
    writes: createWriteService({ ...writeDeps, memoryPaths }),
    flush: createFlushService({
      ...writeDeps,
      drain: syncWorker.drain,
      ...(overrides.now && { now: overrides.now }),
    }),
    indexing: createIndexingService({ store, coordinator, syncWorker, embedding, cache }),
    /** Searches in progress, which background indexing gives way to. */
    foreground,
  }

  return {
    services,
    /**
     * Starts background work: the watcher (resolves once it is ready) and the start-up
     * sync (not awaited; /ready reports it).
     */
    async start(): Promise<void> {
      // Temp files sit next to their target: MEMORY.md at the top, the rest in writable folders.
      const writableDirs = [MEMORY_DIR, ...(config.workspace.extraPathsWritable ? config.workspace.extraPaths : [])]
      let swept = await removeStaleTempFiles(rootReal, false)
      for (const dir of writableDirs) swept += await removeStaleTempFiles(path.join(rootReal, dir), true)
      if (swept > 0) log.info({ files: swept }, 'removed temp files of interrupted writes')
      await syncWorker.start()
      if (config.index.indexOnStart) void coordinator.request({ full: false, reason: 'startup' }).catch(() => undefined)
    },
    /**
     * Shutdown: stop watching, let in-flight writes finish (on disk and indexed), cancel
     * syncs and rebuilds between batches, then close the readers and the stores. Idempotent.
     */
    async close(): Promise<void> {
      await syncWorker.stop()
      await writeDeps.inFlight.close()
      await coordinator.stop()
      await reader.close()
      store.close()
      cache?.close()
      await embedder?.close?.()
      await reranker?.close?.()
    },
  }
}

export type Container = ReturnType<typeof createContainer>
