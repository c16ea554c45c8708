/**
 * One memory space: a workspace folder and its own index file — an agent's, or the team's
 * (SPEC §8). Wires what serves it (index store, indexer, rebuilds, sync coordinator and
 * watcher, file, write and flush services, the search target) over the resources every
 * space shares (space-resources.ts: embedding provider and cache, search workers, prepare
 * cache), and owns their lifecycle: start() sweeps temp files of interrupted writes, starts
 * the watcher and the first sync; close() stops them in reverse order. The folder is held
 * by identity for the space's life (held-root.ts): every read, write, flush and scan goes
 * through it. Part of the composition root.
 */
import fs from 'node:fs'
import { createFileService } from '../files/file-service.js'
import { createFolderBudget } from '../files/folder-budget.js'
import { holdRoot, type HeldRoot } from '../files/held-root.js'
import { removeStaleTempFiles } from '../files/file-writer.js'
import { createFlushService } from '../files/flush-service.js'
import { MEMORY_DIR, isDayFilePath } from '../domain/layout.js'
import { createMemoryPaths } from '../files/memory-paths.js'
import { createWriteService } from '../files/write-service.js'
import { createEntryService } from '../files/entry-service.js'
import { createIndexer } from '../indexing/indexer.js'
import { createIndexingService } from '../indexing/indexing-service.js'
import { createPathIndexQueue } from '../indexing/path-index-queue.js'
import { createRebuilder } from '../indexing/rebuild.js'
import type { SyncResult } from '../indexing/sync-result.js'
import { createSyncCoordinator } from '../indexing/sync-coordinator.js'
import { whenClaimed } from '../indexing/sync-claim.js'
import { createSyncWorker } from '../indexing/sync-worker.js'
import { createSpaceEvents } from '../events/space-events.js'
import { createWriteTargets } from '../indexing/write-targets.js'
import type { SearchTarget } from '../search/search-service.js'
import { TEAM_PREFIX, userPrefix } from '../shared/agent-id.js'
import { createInFlight } from '../shared/in-flight.js'
import { createKeyedMutex } from '../shared/keyed-mutex.js'
import type { Logger } from '../shared/logger.js'
import type { SpaceKey, SpaceStore } from '../store/port.js'
import type { Audience } from '../events/event-bus.js'
import type { SharedResources, SpaceDef } from './space-resources.js'

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
export async function createAgentSpace(def: SpaceDef, shared: SharedResources) {
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

async function buildSpace(def: SpaceDef, shared: SharedResources, root: HeldRoot, log: Logger) {
  const store = await shared.engine.openSpace(def.key)
  try {
    return await wireSpace(def, shared, root, log, store)
  } catch (err) {
    await store.close()
    throw err
  }
}

async function wireSpace(def: SpaceDef, shared: SharedResources, root: HeldRoot, log: Logger, store: SpaceStore) {
  const { config } = shared
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
  // A new or emptied index simply takes the current settings; one built with other
  // settings keeps serving until its rebuild is swapped in.
  // The settings the index was built with, as of open and after each rebuild.
  let builtWith = await store.getMeta('identity')
  if (builtWith === undefined && (await store.listFiles()).length === 0) {
    builtWith = shared.embedding.identity()
    await store.setMeta('identity', builtWith)
  }
  const memoryPaths = createMemoryPaths({
    extraPaths: def.extraPaths,
    extraPathsWritable: def.extraPathsWritable,
    sessions: def.sessionsDir !== undefined,
    readOnly: def.readOnly,
  })
  const roots = {
    workspace: root.dir,
    checkWorkspace: root.check,
    sessions: sessionsReal(def.sessionsDir),
    paths: memoryPaths,
  }
  const targets = createWriteTargets(store)
  const events = shared.events && createSpaceEvents(shared.events, audienceOf(def.key), eventPrefixOf(def.key))
  const indexer = createIndexer({
    live: store,
    targets: targets.all,
    readSeq: await store.readSequence(),
    foreground: shared.foreground,
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
  const syncWorker = createSyncWorker({
    ...config.sync,
    targets: { root: root.path, scanRoots: memoryPaths.scanRoots(), sessions: roots.sessions },
    watcherFactory: shared.watcherFactory,
    requestSync: (reason) => coordinator.request({ full: false, reason }),
    log: log.child({ module: 'sync-worker' }),
    ...(shared.observer && { onWatcherRestart: shared.observer.watcherRestarted }),
    ...(shared.watchFallback && { fallback: shared.watchFallback }),
  })
  // A file's write holds its lock in this process, then across processes sharing the index.
  const locks = createKeyedMutex({ around: (rel, fn) => store.withPathLock(rel, fn) })
  const pathIndex = createPathIndexQueue({
    index: async (rel) => {
      const result = await indexer.syncPaths([rel], 'write')
      shared.observer?.writeIndexed(result)
    },
    settle: (rel) => locks.run(rel, async () => undefined),
  })
  const inFlight = createInFlight()
  const folders = createFolderBudget({
    root: root.dir,
    scanRoots: memoryPaths.scanRoots(),
    maxFolders: config.agents.maxFolders,
  })
  const writeDeps = {
    root: root.dir,
    maxFileBytes: config.index.maxFileBytes,
    makeFolder: folders.make,
    locks,
    inFlight,
    reindexFile: pathIndex.request,
    port: shared.writePort,
    log: log.child({ module: 'writes' }),
    ...(events && { onChange: events.fileChanged }),
  }
  const indexing = createIndexingService({
    store,
    coordinator,
    syncWorker,
    progress: indexer.progress,
    embedding: shared.embedding.status,
    cache: shared.cache,
    engine: shared.engine,
  })
  const target: SearchTarget = {
    space: def.space,
    pathPrefix: '',
    privateMemoryFile: def.space !== 'team',
    reader,
    vectorsReady: () => store.storesVectors(),
    onSearch: syncWorker.onSearch,
  }
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

  /**
   * Removes temp files of interrupted writes, under each target's write lock (so writes may
   * run meanwhile). They sit next to their target: MEMORY.md at the top, the rest in
   * writable folders. A folder that cannot be read is left (logged): the files in it are
   * hidden and never indexed, and the space serves the rest.
   */
  async function sweepTempFiles(): Promise<void> {
    const writableDirs = [MEMORY_DIR, ...(def.extraPathsWritable ? def.extraPaths : [])]
    const lock = (rel: string, fn: () => Promise<void>) => locks.run(rel, fn)
    let swept = 0
    try {
      swept += await removeStaleTempFiles(root.dir, '', false, lock)
      for (const dir of writableDirs) swept += await removeStaleTempFiles(root.dir, dir, true, lock)
    } catch (err) {
      log.warn({ err }, 'could not remove temp files of interrupted writes')
    }
    if (swept > 0) log.info({ files: swept }, 'removed temp files of interrupted writes')
  }

  const files = createFileService({
    root: root.dir,
    sessionsReal: roots.sessions,
    memoryPaths,
    store,
    maxFileBytes: config.index.maxFileBytes,
  })
  const writes = createWriteService({ ...writeDeps, memoryPaths })
  const flush = createFlushService({
    ...writeDeps,
    drain: syncWorker.drain,
    ...(shared.now && { now: shared.now }),
  })
  const entries = createEntryService({
    writes,
    flush,
    findEntries: async (q) => store.findEntries(q),
    readFile: async (rel) => {
      const file = await files.readBytes(rel)
      return file.kind === 'ok' ? file.bytes : null
    },
    dayFiles: async () => (await store.listFiles()).map((f) => f.path).filter(isDayFilePath),
    ...(shared.now && { now: shared.now }),
    ...(events && { onEntry: events.entryChanged }),
    // A key's lock is named as no file can be (paths are relative: none starts with "/"), so
    // it shares the files' lock machinery, across replicas too.
    lockKey: (key, fn) => locks.run(`/key/${key}`, fn),
  })

  return {
    name: def.name,
    space: def.space,
    /** The index file did not exist before (or was of another version): it knows no file yet. */
    fresh: store.fresh,
    files,
    writes,
    flush,
    entries,
    indexing,
    target,
    /** The space's folders against MNEMO_MAX_FOLDERS_PER_AGENT, for an import checked whole before it writes. */
    folders: { survey: folders.survey, removeEmpty: folders.removeEmpty },
    /** How the space notices changes on disk (watching, or rescanning without watches...). */
    watchState: () => syncWorker.status().watch,
    /** Throws 409 PATH_CHANGED when the space's folder was replaced after it was opened. */
    checkFolder: root.check,
    /**
     * Readiness (GET /ready for main): the index's, and the folder still the one held
     * (checked here, so a probe notices a replaced workspace without any other request).
     */
    async readiness() {
      await root.check().catch(() => undefined)
      const index = indexing.readiness()
      const replaced = root.replaced()
      return {
        ready: index.ready && !replaced,
        checks: { ...index.checks, folder: replaced ? ('replaced' as const) : ('held' as const) },
      }
    },
    /** A sync or rebuild is running or queued: closing now would cancel it. */
    isBusy(): boolean {
      const s = coordinator.status()
      return s.syncing || s.rebuilding || s.queued
    },
    /**
     * Starts background work: removes temp files of interrupted writes, starts the watcher
     * and then the first sync. `urgent`: a request waits for that sync, which then does not
     * give way to searches; otherwise it all waits for searches in progress first. Resolves
     * once the watcher is ready; `firstSync` settles when that sync is done (null with
     * indexOnStart off).
     */
    start(opts: { urgent: boolean } = { urgent: false }): Promise<{ firstSync: Promise<SyncResult> | null }> {
      // The sync's promise travels inside an object: returned bare, `run` would wait for it.
      const run = async (): Promise<{ firstSync: Promise<SyncResult> | null }> => {
        if (!opts.urgent) await shared.foreground.whenIdle(START_PAUSE_MS)
        await sweepTempFiles()
        await syncWorker.start()
        if (!config.index.indexOnStart) return { firstSync: null }
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
    /**
     * Stops watching, lets in-flight writes finish (on disk and indexed), cancels syncs and
     * rebuilds between batches, releases the search workers' connections and closes the
     * index. Idempotent.
     */
    async close(): Promise<void> {
      stopListening()
      stopCatchingUp()
      await starting
      await syncWorker.stop()
      await inFlight.close()
      await coordinator.stop()
      await reader.close()
      await store.close()
      root.close()
    },
  }
}

export type AgentSpace = Awaited<ReturnType<typeof createAgentSpace>>
