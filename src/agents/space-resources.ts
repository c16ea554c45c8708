/**
 * What a memory space is (SpaceDef) and what every space shares (SharedResources): the
 * contract between the container, the agents registry and agent-space.ts, which wires one
 * space over them.
 */
import type { Config } from '../config/config.js'
import type { EventBus } from '../events/event-bus.js'
import type { FolderIdentity } from '../files/held-root.js'
import type { WritePort } from '../files/file-writer.js'
import type { IndexingServiceDeps } from '../indexing/indexing-service.js'
import type { PrepareCache } from '../indexing/prepare-file.js'
import type { PrepareElsewhere } from '../indexing/read-there.js'
import type { RebuildStage } from '../indexing/rebuild.js'
import type { SyncOutcome } from '../indexing/sync-coordinator.js'
import type { SyncResult } from '../indexing/sync-result.js'
import type { WatcherFactory } from '../indexing/watcher.js'
import type { IndexReader } from '../store/index-reader.js'
import type { Space } from '../shared/agent-id.js'
import type { Turns } from '../shared/async.js'
import type { Foreground } from '../shared/foreground.js'
import type { Logger } from '../shared/logger.js'
import type { MemoryReclaimer } from '../shared/memory-reclaimer.js'
import type { EmbedderStatus } from '../providers/types.js'
import type { Vectorizer } from '../indexing/vectorizer.js'
import type { SpaceKey, SpaceStore, StorageEngine, VectorConfig } from '../store/port.js'

/** What one space is. */
export type SpaceDef = {
  /** The agent id, `<agent>/<user>` for a user's memory, or `team`. */
  name: string
  space: Space
  /** The workspace folder as a real path (it exists). */
  root: string
  /** Names the folder in errors and logs ("agent folder", "team folder", "workspace"). */
  what: string
  /** The identity the folder must have (seen when it was looked up); refused otherwise. */
  expect?: FolderIdentity
  /** Told when the folder is found replaced after it was opened (the registry closes the space). */
  onFolderReplaced?: () => void
  /** Which index the engine opens for it. */
  key: SpaceKey
  /** Session transcripts (the main agent's MNEMO_SESSIONS_DIR), if any. */
  sessionsDir: string | undefined
  extraPaths: readonly string[]
  extraPathsWritable: boolean
  /** No file of the space may be written through the API. */
  readOnly: boolean
}

/**
 * What every index reads of the embedding side, at each use: it changes when an embedding
 * provider that was pending at start is bound (wiring/embedding.ts), which each space
 * answers with the sync that rebuilds it.
 */
export type SpaceEmbedding = {
  /** The layout vectors are stored in now (null: keyword only). */
  vectors: () => VectorConfig
  /** The settings indexes are built with now (indexing/index-identity.ts). */
  identity: () => string
  /** The vectorizer now (null while no provider is bound). */
  vectorizer: () => Vectorizer | null
  status: () => EmbedderStatus
  /** Calls `listener` whenever a provider is bound late; returns the call that stops it. */
  onBound: (listener: () => void) => () => void
}

/** What every space shares, built once by the container. */
export type SharedResources = {
  config: Pick<Config, 'chunking' | 'sync'> & {
    index: Pick<Config['index'], 'maxFileBytes' | 'indexOnStart'>
    agents: Pick<Config['agents'], 'maxFolders'>
  }
  log: Logger
  embedding: SpaceEmbedding
  /** Where indexes live (store/port.ts). */
  engine: Pick<
    StorageEngine,
    'openSpace' | 'kind' | 'keywordTokenizer' | 'health' | 'locate' | 'peekCounts' | 'onRecovered' | 'dropSpace'
  >
  cache: IndexingServiceDeps['cache']
  prepareCache: PrepareCache
  /** Gives memory back after big indexing work (shared/memory-reclaimer.ts). */
  reclaimer?: Pick<MemoryReclaimer, 'worked' | 'hold'>
  /** One indexing slice per turn of the event loop, across every space (shared/async.ts). */
  turns: Turns
  foreground: Foreground
  /** Index passes and writes in progress in every space, which the indexes' upkeep gives way to (index-upkeep.ts). */
  indexing: Foreground
  /** The reader searches use for a space's index (the shared worker pool, or the index itself). */
  readerFor: (store: SpaceStore) => IndexReader
  /** Where a space's indexer prepares big new files off the main thread (wiring/index-thread-jobs.ts). */
  preparerFor?: (store: SpaceStore) => PrepareElsewhere | undefined
  watcherFactory: WatcherFactory
  /** Rescan and retry periods of spaces out of inotify watches (sync-trigger.ts; tests shorten them). */
  watchFallback?: { rescanMs: number; retryMs: number }
  /** The file system calls writes make (tests inject a full disk). */
  writePort: WritePort
  onRebuildStage?: (stage: RebuildStage) => Promise<void>
  now?: () => number
  /** Where the space announces file changes, indexing and rebuilds (GET /events). */
  events?: Pick<EventBus, 'publish'>
  /** Told of every space's sync outcomes, writes indexed and watcher restarts (metrics.ts). */
  observer?: {
    syncEnded: (outcome: SyncOutcome) => void
    /** A write's own index pass: what it asked of the embedding provider. */
    writeIndexed: (result: Pick<SyncResult, 'embedded' | 'embeddingTokens' | 'embedError'>) => void
    watcherRestarted: () => void
  }
}
