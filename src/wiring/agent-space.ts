/**
 * Builds one memory space (agents/agent-space.ts): a workspace folder and its own index —
 * an agent's, a user's, or the team's (SPEC §8, §11). Wires what serves it, in order: the
 * index side (indexer, reader, rebuilds, sync coordinator and watcher), the write side
 * (space-writes.ts: locks, file, write, flush and entry services), then its lifecycle, over the resources
 * every space shares (agents/space-resources.ts: embedding, the engine and its readers, the
 * prepare cache). It owns their lifecycle: start() sweeps temp files of interrupted writes, starts
 * the watcher and the first sync; close() stops them in reverse order. The folder is held
 * by identity for the space's life (held-root.ts): every read, write, flush and scan goes
 * through it. Part of the composition root.
 */
import fs from 'node:fs'
import type { AgentSpace } from '../agents/agent-space.js'
import type { SharedResources, SpaceDef } from '../agents/space-resources.js'
import type { Audience } from '../events/event-bus.js'
import { createSpaceEvents } from '../events/space-events.js'
import { holdRoot, type HeldRoot } from '../files/held-root.js'
import { createMemoryPaths } from '../files/memory-paths.js'
import { createIndexer } from '../indexing/indexer.js'
import { createIndexingService } from '../indexing/indexing-service.js'
import { createRebuilder } from '../indexing/rebuild.js'
import { whenClaimed } from '../indexing/sync-claim.js'
import { createSyncCoordinator } from '../indexing/sync-coordinator.js'
import type { SyncResult } from '../indexing/sync-result.js'
import { createSyncTrigger } from '../indexing/sync-trigger.js'
import { createWriteTargets } from '../indexing/write-targets.js'
import type { SearchedIndex } from '../search/search-plan.js'
import { sweepTempFiles, wireWrites, type SpaceWiring, type Writing } from './space-writes.js'
import { TEAM_PREFIX, userPrefix } from '../shared/agent-id.js'
import type { Logger } from '../shared/logger.js'
import type { SpaceKey, SpaceStore } from '../store/port.js'

/**
 * Longest wait for searches in progress before a reopened space starts its watcher and
 * catch-up sync, in ms: the search that reopened it is answered first.
 */
const START_PAUSE_MS = 1000

/** Who hears of a space's changes (events/event-bus.ts). */
function audienceOf(key: SpaceKey): Audience {
  if (key.kind === 'team') return { space: 'team' }
  return key.kind === 'user' ? { space: 'user', agent: key.agent, user: key.user } : { space: 'agent', agent: key.id }
}

/** How a space's paths are named in its events: as the request that reaches it names them. */
function eventPrefixOf(key: SpaceKey): string {
  if (key.kind === 'team') return TEAM_PREFIX
  return key.kind === 'user' ? userPrefix(key.user) : ''
}

/** The sessions folder as a real path, created when missing; null when none is configured. */
function sessionsReal(dir: string | undefined): string | null {
  if (dir === undefined) return null
  fs.mkdirSync(dir, { recursive: true })
  return fs.realpathSync(dir)
}

/**
 * Builds a space over its folder, held from here on; throws 409 PATH_CHANGED when the folder
 * is not the one `def.expect` names.
 */
export async function createAgentSpace(def: SpaceDef, shared: SharedResources): Promise<AgentSpace> {
  const log = shared.log.child(
    def.key.kind === 'user'
      ? { agent: def.key.agent, user: def.key.user }
      : { [def.space === 'team' ? 'space' : 'agent']: def.name },
  )
  const root = holdRoot(def.root, {
    what: def.what,
    ...(def.expect && { expect: def.expect }),
    onReplaced: () => {
      log.warn({ folder: def.what }, 'the folder was replaced after it was opened: refused, not followed')
      def.onFolderReplaced?.()
    },
  })
  try {
    return await buildSpace(def, shared, root, log)
  } catch (err) {
    root.close()
    throw err
  }
}

async function buildSpace(def: SpaceDef, shared: SharedResources, root: HeldRoot, log: Logger): Promise<AgentSpace> {
  const store = await shared.engine.openSpace(def.key)
  try {
    return await wireSpace(def, shared, root, log, store)
  } catch (err) {
    await store.close()
    throw err
  }
}

async function wireSpace(
  def: SpaceDef,
  shared: SharedResources,
  root: HeldRoot,
  log: Logger,
  store: SpaceStore,
): Promise<AgentSpace> {
  reportRepairs(store, log)
  const memoryPaths = createMemoryPaths({
    extraPaths: def.extraPaths,
    extraPathsWritable: def.extraPathsWritable,
    sessions: def.sessionsDir !== undefined,
    readOnly: def.readOnly,
  })
  const w: SpaceWiring = {
    def,
    shared,
    root,
    log,
    store,
    memoryPaths,
    roots: {
      workspace: root.dir,
      checkWorkspace: root.check,
      sessions: sessionsReal(def.sessionsDir),
      paths: memoryPaths,
    },
    events: shared.events && createSpaceEvents(shared.events, audienceOf(def.key), eventPrefixOf(def.key)),
  }
  const indexing = await wireIndexing(w)
  const writing = wireWrites(w, indexing.indexer, indexing.syncTrigger)
  const target: SearchedIndex = {
    space: def.space,
    pathPrefix: '',
    privateMemoryFile: def.space !== 'team',
    reader: indexing.reader,
    vectorsReady: () => store.storesVectors(),
    onSearch: indexing.syncTrigger.onSearch,
  }
  return { name: def.name, space: def.space, fresh: store.fresh, target, ...lifecycle(w, indexing, writing) }
}

/** Tells the log what opening the index found and repaired, now or once it is settled. */
function reportRepairs(store: SpaceStore, log: Logger): void {
  if (store.repaired.staleRebuild) {
    log.warn('removed the half-built index of a rebuild that was interrupted; the previous index serves')
  }
  if (store.repaired.recreated)
    log.warn('the index was written by another version: it was deleted and will be rebuilt from the files')
  store.recovered.then(
    (paths) => {
      if (paths > 0) log.warn({ files: paths }, 'settled file changes an interrupted run left half-way in the index')
    },
    (err: unknown) => {
      if (store.isOpen()) log.error({ err }, 'could not settle file changes an interrupted run left in the index')
    },
  )
}

/**
 * The index side: the indexer (into every write target), the reader the engine hands out,
 * rebuilds, the sync coordinator and the watcher, and the status service over them.
 */
async function wireIndexing({ shared, root, log, store, memoryPaths, roots, events }: SpaceWiring) {
  const { config } = shared
  // The settings the index was built with, as of open and after each rebuild. A new or
  // emptied index simply takes the current settings; one built with other settings keeps
  // serving until its rebuild is swapped in.
  let builtWith = await store.getMeta('identity')
  if (builtWith === undefined && (await store.listFiles()).length === 0) {
    builtWith = shared.embedding.identity()
    await store.setMeta('identity', builtWith)
  }
  const targets = createWriteTargets(store)
  const indexer = createIndexer({
    live: store,
    targets,
    readSeq: await store.readSequence(),
    foreground: shared.foreground,
    indexing: shared.indexing,
    roots,
    prepareCache: shared.prepareCache,
    prepareElsewhere: shared.preparerFor?.(store),
    reclaimer: shared.reclaimer,
    turns: shared.turns,
    chunking: config.chunking,
    maxFileBytes: config.index.maxFileBytes,
    vectorizer: shared.embedding.vectorizer,
    log: log.child({ module: 'indexer' }),
    ...(shared.now && { now: shared.now }),
    ...(events && { announce: events.indexChanged }),
  })
  const reader = shared.readerFor(store)
  const rebuilder = createRebuilder({
    live: store,
    indexer,
    targets,
    identity: shared.embedding.identity,
    readers: reader,
    foreground: shared.foreground,
    log: log.child({ module: 'rebuild' }),
    ...(shared.onRebuildStage && { onStage: shared.onRebuildStage }),
  })
  const coordinator = createSyncCoordinator({
    sync: (reason, signal, urgent) =>
      whenClaimed(store, reason, () => indexer.sync({ full: false, reason, signal, urgent })),
    rebuild: async (reason, signal) => {
      const run = () => rebuilder.rebuild(reason, signal)
      const result = await (events ? events.rebuilt(run, signal) : run())
      builtWith = await store.getMeta('identity')
      return result
    },
    stale: () => builtWith !== shared.embedding.identity(),
    log: log.child({ module: 'sync' }),
    ...(shared.observer && { onOutcome: shared.observer.syncEnded }),
  })
  const syncTrigger = createSyncTrigger({
    ...config.sync,
    roots: { root: root.path, scanRoots: memoryPaths.scanRoots(), sessions: roots.sessions },
    watcherFactory: shared.watcherFactory,
    requestSync: (reason) => coordinator.request({ full: false, reason }),
    log: log.child({ module: 'sync-trigger' }),
    ...(shared.observer && { onWatcherRestart: shared.observer.watcherRestarted }),
    ...(shared.watchFallback && { fallback: shared.watchFallback }),
  })
  const indexing = createIndexingService({
    store,
    coordinator,
    syncTrigger,
    progress: indexer.progress,
    embedding: shared.embedding.status,
    cache: shared.cache,
    engine: shared.engine,
  })
  return { indexer, reader, coordinator, syncTrigger, indexing }
}

type Indexing = Awaited<ReturnType<typeof wireIndexing>>

/** The space's services, and how it starts, answers readiness and closes (AgentSpace). */
function lifecycle(w: SpaceWiring, indexing: Indexing, writing: Writing) {
  const { shared, root, store } = w
  const { coordinator, syncTrigger, reader } = indexing
  let starting: Promise<void> | null = null
  // A provider bound late changes the identity: the next sync after the running work
  // rebuilds the index with vectors (sync-coordinator.ts, stale).
  const stopListening = shared.embedding.onBound(() => {
    void coordinator
      .idle()
      .then(() => coordinator.request({ full: false, reason: 'embedding provider answered' }))
      .catch(() => undefined)
  })
  // Syncs that failed while the database was away (and writes indexed then) are caught up
  // as soon as it answers again, and the space's last sync is a good one for /ready.
  const stopCatchingUp = shared.engine.onRecovered(() => {
    coordinator.request({ full: false, reason: 'database reachable again' }).catch(() => undefined)
  })
  return {
    files: writing.files,
    writes: writing.writes,
    flush: writing.flush,
    entries: writing.entries,
    indexing: indexing.indexing,
    folders: { survey: writing.folders.survey, removeEmpty: writing.folders.removeEmpty },
    watchState: () => syncTrigger.status().watch,
    checkFolder: root.check,
    async readiness() {
      await root.check().catch(() => undefined)
      const index = indexing.indexing.readiness()
      const replaced = root.replaced()
      return {
        ready: index.ready && !replaced,
        checks: { ...index.checks, folder: replaced ? ('replaced' as const) : ('held' as const) },
      }
    },
    isBusy(): boolean {
      const s = coordinator.status()
      return s.syncing || s.rebuilding || s.queued
    },
    start(opts: { urgent: boolean } = { urgent: false }): Promise<{ firstSync: Promise<SyncResult> | null }> {
      // The sync's promise travels inside an object: returned bare, `run` would wait for it.
      const run = async (): Promise<{ firstSync: Promise<SyncResult> | null }> => {
        if (!opts.urgent) await shared.foreground.whenIdle(START_PAUSE_MS)
        await sweepTempFiles(w, writing.locks)
        await syncTrigger.start()
        if (!shared.config.index.indexOnStart) return { firstSync: null }
        const firstSync = coordinator.request({ full: false, reason: 'startup', urgent: opts.urgent })
        firstSync.catch(() => undefined)
        return { firstSync }
      }
      const started = run()
      starting = started.then(
        () => undefined,
        () => undefined,
      )
      return started
    },
    async close(): Promise<void> {
      stopListening()
      stopCatchingUp()
      await starting
      await syncTrigger.stop()
      await writing.inFlight.close()
      await coordinator.stop()
      await indexing.indexer.stop()
      await reader.close()
      await store.close()
      root.close()
    },
  }
}
