/**
 * Composition root: the only place that calls the create* factories (agent-space.ts wires
 * one space's part of it). It chooses providers and builds what every agent shares — the
 * embedding cache and vectorizer, the search worker pool, the term cache — then the main
 * agent's space, the team's, and the registry that opens other agents on demand. It owns
 * their lifecycle: start() runs the start-up sync of main and the team, close() closes the
 * agents, the shared pool and the providers in reverse order.
 */
import fs from 'node:fs'
import path from 'node:path'
import { createAgentGateway } from './agents/agent-gateway.js'
import { createEmbeddingWiring } from './embedding-wiring.js'
import { MAIN_AGENT } from './shared/agent-id.js'
import { createAgentRegistry } from './agents/agent-registry.js'
import { createAgentSpace, type AgentSpace, type SharedResources, type SpaceDef } from './agents/agent-space.js'
import { createTokenAuth } from './agents/token-auth.js'
import type { Config } from './config/config.js'
import { nodeWritePort, type WritePort } from './files/file-writer.js'
import { workspaceAccess } from './files/workspace-access.js'
import { createTermCache } from './indexing/prepare-file.js'
import type { RebuildStage } from './indexing/rebuild.js'
import { watchSources, type WatcherFactory } from './indexing/watcher.js'
import { createRerankProvider, type ProviderDeps } from './providers/create-providers.js'
import type { EmbeddingProvider, RerankProvider } from './providers/types.js'
import { createLocalReader, createReaderOps } from './search/index-reader.js'
import { createReaderPool } from './search/reader-pool.js'
import { createSearchService } from './search/search-service.js'
import { createMetrics } from './metrics/metrics.js'
import { instrumentGateway } from './metrics/instrument-gateway.js'
import { createForeground } from './shared/foreground.js'
import type { Logger } from './shared/logger.js'
import type { Db } from './store/database.js'
import { ensureDataDir, indexOpenError } from './store/data-dir.js'
import { peekIndexCounts } from './store/index-peek.js'
import { loadSqliteVec } from './store/sqlite-vec.js'

/** File of the embedding cache inside MNEMO_DATA_DIR (kept apart so it survives rebuilds). */
export const EMBEDDING_CACHE_FILE = 'embeddings.sqlite'
/**
 * Analysed chunk terms remembered for all agents: at most 20,000 chunks and 4 million
 * characters of terms (about 8 MB; a full 400-token chunk's terms are about 3,000
 * characters), enough for the files being appended to at any time.
 */
const TERM_CACHE = { chunks: 20_000, chars: 4_000_000 }
/** Index files of the agents (other than main's index.sqlite) and of the team, in MNEMO_DATA_DIR. */
export const agentIndexPath = (dataDir: string, id: string): string => path.join(dataDir, 'agents', `${id}.sqlite`)
export const teamIndexPath = (dataDir: string): string => path.join(dataDir, 'team.sqlite')

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
  /** Replaces the file system calls of writes (tests fill the disk). */
  writePort?: WritePort
}

/** A folder as a real path, created when missing. */
function realDir(dir: string): string {
  fs.mkdirSync(dir, { recursive: true })
  return fs.realpathSync(dir)
}

export function createContainer(config: Config, log: Logger, overrides: ContainerOverrides = {}) {
  ensureDataDir(config.index.dataDir)
  const reranker =
    overrides.reranker !== undefined
      ? overrides.reranker
      : createRerankProvider(config.rerank, config.embedding.allowDownload, overrides)
  const loadVectorExtension = overrides.loadVectorExtension ?? loadSqliteVec
  const embedding = createEmbeddingWiring({
    config,
    log: log.child({ module: 'embedding' }),
    cachePath: path.join(config.index.dataDir, EMBEDDING_CACHE_FILE),
    loadVectorExtension,
    embedder: overrides.embedder,
    providerDeps: overrides,
    now: overrides.now,
  })
  const { cache } = embedding
  // Main and the team are always open besides the agents the registry keeps.
  const pool =
    config.search.workers > 0
      ? createReaderPool({
          size: config.search.workers,
          shards: embedding.shards,
          maxConnections: config.agents.maxOpen + 2,
          log: log.child({ module: 'search-pool' }),
        })
      : null
  // Index gauges read main's status at scrape time, once main exists.
  const metrics = createMetrics({ indexSnapshot: async () => main.indexing.status() })
  const shared: SharedResources = {
    config,
    log,
    embedding,
    loadVectorExtension,
    cache,
    termCache: createTermCache(TERM_CACHE.chunks, TERM_CACHE.chars),
    foreground: createForeground(),
    readerFor: (store) => (pool ? pool.forIndex(store.dbPath, createReaderOps(store)) : createLocalReader(store)),
    watcherFactory: overrides.watcherFactory ?? watchSources,
    writePort: overrides.writePort ?? nodeWritePort,
    ...(overrides.onRebuildStage && { onRebuildStage: overrides.onRebuildStage }),
    ...(overrides.now && { now: overrides.now }),
    observer: metrics.observer,
  }
  // Extra paths and session transcripts are main's; other agents and the team have the
  // plain layout (MEMORY.md, memory/).
  const plain = { sessionsDir: undefined, extraPaths: [], extraPathsWritable: false }
  const mainDef: SpaceDef = {
    name: MAIN_AGENT,
    space: 'agent',
    root: config.workspace.root,
    dbPath: config.index.dbPath,
    sessionsDir: config.workspace.sessionsDir,
    extraPaths: config.workspace.extraPaths,
    extraPathsWritable: config.workspace.extraPathsWritable,
    readOnly: false,
  }
  let main: AgentSpace
  try {
    main = createAgentSpace(mainDef, shared)
  } catch (err) {
    throw indexOpenError(mainDef.dbPath, err)
  }
  const { teamDir, dir: agentsDir } = config.agents
  const team =
    teamDir === undefined
      ? null
      : createAgentSpace(
          {
            ...plain,
            name: 'team',
            space: 'team',
            root: realDir(teamDir),
            dbPath: teamIndexPath(config.index.dataDir),
            readOnly: !config.agents.teamWritable,
          },
          shared,
        )
  const registry = createAgentRegistry({
    main,
    dirReal: agentsDir === undefined ? null : realDir(agentsDir),
    maxOpen: config.agents.maxOpen,
    open: (id, root) =>
      createAgentSpace(
        { ...plain, name: id, space: 'agent', root, dbPath: agentIndexPath(config.index.dataDir, id), readOnly: false },
        shared,
      ),
    peek: (id) => ({ ...peekIndexCounts(agentIndexPath(config.index.dataDir, id)), lastSync: null }),
    log: log.child({ module: 'agents' }),
    ...(overrides.now && { now: overrides.now }),
  })
  const search = createSearchService({
    embedder: embedding.queryEmbedder,
    reranker,
    settings: config.search,
    rerank: config.rerank,
    log: log.child({ module: 'search' }),
    ...(overrides.now && { now: overrides.now }),
  })

  return {
    services: {
      /** Everything a request acting as an agent may do (REST and MCP). */
      memory: instrumentGateway(createAgentGateway({ registry, team, search }), metrics),
      /** Who a request is, from its token. */
      auth: createTokenAuth({ adminToken: config.server.apiToken, agentTokens: config.agents.tokens }),
      /** The main agent's readiness (GET /ready), and whether its workspace can be written. */
      readiness: async () => {
        const index = main.indexing.readiness()
        const workspace = await workspaceAccess(config.workspace.root)
        return { ...index, checks: { ...index.checks, workspace, embedder: embedding.status().state } }
      },
      /** Searches in progress, which background indexing gives way to. */
      foreground: shared.foreground,
      /** Prometheus metrics (GET /metrics). */
      metrics,
    },
    /** Agents open now besides main (for tests and benchmarks). */
    openAgents: registry.openCount,
    /**
     * Starts background work of main and the team: watchers (resolves once they are ready)
     * and start-up syncs (not awaited; /ready reports main's). Other agents start when opened.
     */
    async start(): Promise<void> {
      embedding.start()
      await Promise.all([main.start(), team?.start()])
    },
    /**
     * Shutdown: closes the agents (stop watching, let in-flight writes finish, cancel syncs
     * and rebuilds between batches, close indexes), then the search workers, the cache and
     * the providers. Idempotent.
     */
    async close(): Promise<void> {
      await Promise.all([registry.close(), main.close(), team?.close()])
      await embedding.close()
      await pool?.close()
      cache?.close()
      await reranker?.close?.()
    },
  }
}

export type Container = ReturnType<typeof createContainer>
