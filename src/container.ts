/**
 * Composition root: the only place that calls the create* factories. It opens the index,
 * builds the indexer, sync coordinator and services, and owns their lifecycle:
 * start() runs the start-up sync, close() waits for the running sync and closes the index.
 */
import fs from 'node:fs'
import type { Config } from './config/config.js'
import { createFileService } from './files/file-service.js'
import { createMemoryPaths } from './files/memory-paths.js'
import { createIndexer } from './indexing/indexer.js'
import { createIndexingService } from './indexing/indexing-service.js'
import { createSyncCoordinator } from './indexing/sync-coordinator.js'
import { createLocalReader, createReaderOps } from './search/index-reader.js'
import { createReaderPool } from './search/reader-pool.js'
import { createSearchService } from './search/search-service.js'
import type { Logger } from './shared/logger.js'
import { createIndexStore } from './store/index-store.js'

export type ContainerOverrides = {
  /** Wall clock in ms since the epoch (tests pin it). */
  now?: () => number
}

export function createContainer(config: Config, log: Logger, overrides: ContainerOverrides = {}) {
  const rootReal = fs.realpathSync(config.workspace.root)
  const store = createIndexStore({ dbPath: config.index.dbPath })
  if (store.recreated) log.warn('index schema changed: the index was emptied and will be rebuilt from the files')
  const memoryPaths = createMemoryPaths(config.workspace.extraPaths)
  const indexer = createIndexer({
    store,
    rootReal,
    memoryPaths,
    chunking: config.chunking,
    maxFileBytes: config.index.maxFileBytes,
    log: log.child({ module: 'indexer' }),
    ...(overrides.now && { now: overrides.now }),
  })
  const coordinator = createSyncCoordinator({ indexer, log: log.child({ module: 'sync' }) })
  const reader =
    config.search.workers > 0
      ? createReaderPool({
          dbPath: config.index.dbPath,
          size: config.search.workers,
          fallback: createReaderOps(store),
          log: log.child({ module: 'search-pool' }),
        })
      : createLocalReader(store)
  const services = {
    search: createSearchService({ reader, settings: config.search }),
    files: createFileService({ rootReal, memoryPaths, store, maxFileBytes: config.index.maxFileBytes }),
    indexing: createIndexingService({ store, coordinator }),
  }

  return {
    services,
    /** Starts background work: the start-up sync (not awaited; /ready reports it). */
    start(): void {
      if (config.index.indexOnStart) void coordinator.request({ full: false, reason: 'startup' })
    },
    /** Stops the search workers, waits for the running sync, then closes the index. Idempotent. */
    async close(): Promise<void> {
      await reader.close()
      await coordinator.idle()
      store.close()
    },
  }
}

export type Container = ReturnType<typeof createContainer>
