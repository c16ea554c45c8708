/**
 * The composition root: config in, services out. The files of wiring/ are the only code that
 * calls the create* factories of more than one folder, and this one builds the service top
 * to bottom: storage and embeddings (storage.ts, embedding.ts), what every space shares,
 * search, then the agents (agents.ts: main's space, the team's, and the registry that opens
 * other agents on demand, each built by agent-space.ts) and what wraps their gateway. It owns
 * their lifecycle: start() runs the start-up sync of main and the team, close() closes the
 * agents, the engine's threads and the providers in reverse order.
 */
import { createAdmission } from '../admission/admission.js'
import { createAgents } from './agents.js'
import type { SharedResources } from '../agents/space-resources.js'
import { createEmbeddingWiring } from './embedding.js'
import { createEventBus } from '../events/event-bus.js'
import { EVENT_DEFAULTS, type EventSettings } from '../events/event-settings.js'
import { createTokenAuth } from '../agents/token-auth.js'
import type { Config } from '../config/config.js'
import { nodeWritePort, type WritePort } from '../files/file-writer.js'
import { workspaceAccess } from '../files/workspace-access.js'
import { createPrepareCache } from '../indexing/prepare-file.js'
import type { RebuildStage } from '../indexing/rebuild.js'
import { watchSources, type WatcherFactory } from '../indexing/watcher.js'
import { createRerankProvider, type ProviderDeps } from '../providers/create-providers.js'
import type { EmbeddingProvider, RerankProvider } from '../providers/types.js'
import { createSearchService } from '../search/search-service.js'
import { createExpansionModule } from './expand.js'
import { createMetrics } from '../metrics/metrics.js'
import { instrumentGateway } from '../metrics/instrument-gateway.js'
import { logSearches } from '../search-log/log-searches.js'
import { createSearchRecorder } from '../search-log/search-recorder.js'
import { createSearchLogService } from '../search-log/search-log-service.js'
import type { VectorConfig } from '../store/port.js'
import type { SearchLog } from '../store/search-log-port.js'
import { createTurns } from '../shared/async.js'
import { createForeground, SEARCHES_OVERLAP_MS, SEARCHES_QUIET_MS } from '../shared/foreground.js'
import { createMemoryReclaimer } from '../shared/memory-reclaimer.js'
import type { Logger } from '../shared/logger.js'
import type { Db } from '../store/sqlite/database.js'
import { ensureDataDir } from '../store/data-dir.js'
import { loadSqliteVec } from '../store/sqlite/sqlite-vec.js'
import type { ImpactListOptions } from '../store/sqlite/impact-lists.js'
import type { RareListOptions } from '../store/sqlite/rare-lists.js'
import { createStorage } from './storage.js'
import { preparerOf } from './index-thread-jobs.js'
import { createTransfer } from './transfer.js'

/**
 * What preparing files remembers for all agents (indexing/prepare-file.ts): analysed terms
 * of at most 20,000 chunks and 4 million characters (about 8 MB; a full 400-token chunk's
 * terms are about 3,000 characters), and checkpoints of the last 256 files prepared, at
 * most 2 million characters of their text (with the chunks they keep, about 12 MB): enough
 * for the files being appended to at any time.
 */
const PREPARE_CACHE = { chunks: 20_000, termChars: 4_000_000, files: 256, fileChars: 2_000_000 }

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
  /** Replaces the disk watcher (tests make it fail, or run out of watches). */
  watcherFactory?: WatcherFactory
  /** Rescan and retry periods of a space out of inotify watches, in ms (tests shorten them). */
  watchFallback?: { rescanMs: number; retryMs: number }
  /** Replaces the file system calls of writes (tests fill the disk). */
  writePort?: WritePort
  /** An extra overload signal (true: shed requests with 503 OVERLOADED); tests drive shedding with it. */
  pressureProbe?: () => boolean
  /** Replaces limits of GET /events (tests shrink the replay window, queues and caps). */
  events?: Partial<EventSettings>
  /** A built script for the search workers (tests start them from one bundle, not through tsx). */
  readerWorkerEntry?: URL
  /** Wraps the engine's search log (tests make its writes fail or stall). */
  searchLogStore?: (store: SearchLog) => SearchLog
  /** Which terms get impact lists on SQLite (store/sqlite/impact-lists.ts): tests lower them. */
  impactLists?: ImpactListOptions
  /** Which terms get rare lists on SQLite, from which size (store/sqlite/rare-lists.ts): tests lower them. */
  rareLists?: RareListOptions
}

export async function createContainer(config: Config, log: Logger, overrides: ContainerOverrides = {}) {
  const now = overrides.now && { now: overrides.now }
  ensureDataDir(config.index.dataDir)
  const foreground = createForeground()

  // 1. Storage and embeddings. The engine reads the vector layout at each use; the
  // embedding side, built over the engine, decides it, and is bound to it right after.
  let vectorLayout: () => VectorConfig = () => null
  const engine = await createStorage({
    config,
    log,
    vectors: () => vectorLayout(),
    loadVectorExtension: overrides.loadVectorExtension ?? loadSqliteVec,
    readerWorkerEntry: overrides.readerWorkerEntry,
    searchesQuiet: () => foreground.quietFor(SEARCHES_QUIET_MS),
    searchesTogether: () => foreground.together(SEARCHES_OVERLAP_MS),
    impactLists: overrides.impactLists,
    rareLists: overrides.rareLists,
  })
  const embedding = createEmbeddingWiring({
    config,
    log: log.child({ module: 'embedding' }),
    engine,
    embedder: overrides.embedder,
    providerDeps: overrides,
    now: overrides.now,
  })
  vectorLayout = embedding.vectors
  const { cache } = embedding
  const reranker =
    overrides.reranker !== undefined
      ? overrides.reranker
      : createRerankProvider(config.rerank, config.embedding.allowDownload, overrides)

  // 2. What every space shares, and what watches the process.
  const reclaimer = createMemoryReclaimer({
    log: log.child({ module: 'memory' }),
    afterWork: () => engine.releaseMemory?.(),
  })
  const eventSettings = { ...EVENT_DEFAULTS, ...overrides.events }
  const eventBus = createEventBus({ replay: eventSettings.replay, ...now })
  const admission = createAdmission(config.admission, { pressureProbe: overrides.pressureProbe })
  const metrics = createMetrics({ admissionSnapshot: admission.snapshot })
  const shared: SharedResources = {
    config,
    log,
    embedding,
    engine,
    cache,
    prepareCache: createPrepareCache(PREPARE_CACHE),
    reclaimer,
    turns: createTurns(),
    foreground,
    indexing: createForeground(),
    readerFor: (store) => engine.readerFor(store),
    preparerFor: (store) => preparerOf(engine.offThreadFor(store)),
    watcherFactory: overrides.watcherFactory ?? watchSources,
    ...(overrides.watchFallback && { watchFallback: overrides.watchFallback }),
    writePort: overrides.writePort ?? nodeWritePort,
    ...(overrides.onRebuildStage && { onRebuildStage: overrides.onRebuildStage }),
    ...now,
    observer: metrics.observer,
    events: eventBus,
  }

  // 3. Search, the agents over it, and what wraps their gateway.
  const search = createSearchService({
    embedder: embedding.queryEmbedder,
    reranker,
    settings: config.search,
    rerank: config.rerank,
    log: log.child({ module: 'search' }),
    expansion: createExpansionModule(config.expand, log.child({ module: 'expand' })),
    ...now,
  })
  const agents = await createAgents({ config, shared, search, log, ...now })
  metrics.readSpaces({
    index: async () => agents.main.indexing.status(),
    spaces: () => ({ open: agents.openAgents(), rescanning: agents.rescanning() }),
  })
  const searchLog = config.searchLog.enabled
    ? createSearchRecorder({
        store: (overrides.searchLogStore ?? ((s: SearchLog) => s))(engine.openSearchLog()),
        settings: config.searchLog,
        log: log.child({ module: 'search-log' }),
        onOutcome: metrics.searchLogged,
        ...now,
      })
    : null
  const instrumented = instrumentGateway(agents.gateway, metrics)

  return {
    services: {
      /** Everything a request acting as an agent may do (REST and MCP). */
      gateway: searchLog ? logSearches(instrumented, searchLog, overrides.now) : instrumented,
      /** The search log's reads and feedback (GET /searches, POST /feedback). */
      searchLogService: createSearchLogService({
        recorder: searchLog,
        onFeedback: metrics.feedbackGiven,
        ...now,
      }),
      /** Export and import of memory as tar archives. */
      transfer: createTransfer({ config, registry: agents.registry, team: agents.team, users: agents.users, log }),
      /** Who a request is, from its token. */
      auth: createTokenAuth({ adminToken: config.server.apiToken, agentTokens: config.agents.tokens }),
      /** The main agent's readiness (GET /ready), whether its workspace can be written, the embedder's state. */
      readiness: async () => {
        const [main, workspace, health] = await Promise.all([
          agents.main.readiness(),
          workspaceAccess(config.workspace.root),
          engine.health(),
        ])
        return {
          ready: main.ready && health.ok,
          checks: {
            ...main.checks,
            workspace,
            embedder: embedding.status().state,
            engine: engine.kind,
            database: health.ok ? ('ok' as const) : ('unreachable' as const),
          },
        }
      },
      /** Searches in progress, which background indexing gives way to. */
      foreground: shared.foreground,
      /** Prometheus metrics (GET /metrics). */
      metrics,
      /** Per-agent request slots, the body budget and the shedding settings. */
      admission,
      /** Change notifications every space publishes (GET /events) and their limits. */
      events: { settings: eventSettings, bus: eventBus },
    },
    /** Agents open now besides main (for tests and benchmarks). */
    openAgents: agents.openAgents,
    /**
     * Starts background work of main and the team: watchers (resolves once they are ready)
     * and start-up syncs (not awaited; /ready reports main's), the periodic look at the heap
     * (memory-reclaimer.ts) and, when the embedding server did not answer at start, the
     * background probe (embedding.ts). Other agents start when opened.
     */
    async start(): Promise<void> {
      reclaimer.start()
      embedding.start()
      await agents.start()
    },
    /**
     * Shutdown: closes the agents (stop watching, let in-flight writes finish, cancel syncs
     * and rebuilds between batches, close indexes), then the search workers, the cache and
     * the providers. Idempotent.
     */
    async close(): Promise<void> {
      await agents.close()
      await searchLog?.close()
      await embedding.close()
      reclaimer.close()
      await cache?.close()
      await engine.close()
      await reranker?.close?.()
    },
  }
}

export type Container = Awaited<ReturnType<typeof createContainer>>
