/**
 * The write side of one memory space (agent-space.ts builds the rest): per-file locks,
 * writes indexed as they land, the folder budget, the file, write, flush and entry
 * services, and the sweep of temp files interrupted writes left.
 */
import type { SharedResources, SpaceDef } from '../agents/space-resources.js'
import { MEMORY_DIR, isDayFilePath } from '../domain/layout.js'
import type { SpaceEvents } from '../events/space-events.js'
import { createEntryService } from '../files/entry-service.js'
import { createFileService } from '../files/file-service.js'
import { removeStaleTempFiles } from '../files/file-writer.js'
import { createFlushService } from '../files/flush-service.js'
import { createFolderBudget } from '../files/folder-budget.js'
import type { HeldRoot } from '../files/held-root.js'
import type { MemoryPaths } from '../files/memory-paths.js'
import { createWriteService } from '../files/write-service.js'
import type { SourceRoots } from '../indexing/file-scanner.js'
import type { Indexer } from '../indexing/indexer.js'
import { createPathIndexQueue } from '../indexing/path-index-queue.js'
import type { SyncTrigger } from '../indexing/sync-trigger.js'
import { createInFlight } from '../shared/in-flight.js'
import { createKeyedMutex } from '../shared/keyed-mutex.js'
import type { Logger } from '../shared/logger.js'
import type { SpaceStore } from '../store/port.js'

/** What building one space's parts reads: its definition, what spaces share, its folder and index. */
export type SpaceWiring = {
  def: SpaceDef
  shared: SharedResources
  root: HeldRoot
  log: Logger
  store: SpaceStore
  memoryPaths: MemoryPaths
  roots: SourceRoots
  events: SpaceEvents | undefined
}

/**
 * The write side: per-file locks (across processes sharing the index), writes indexed as
 * they land, the folder budget, and the file, write, flush and entry services.
 */
export function wireWrites(
  { shared, root, log, store, memoryPaths, roots, events }: SpaceWiring,
  indexer: Pick<Indexer, 'syncPaths'>,
  syncTrigger: Pick<SyncTrigger, 'drain'>,
) {
  const { config } = shared
  // A file's write holds its lock in this process, then across processes sharing the index;
  // while it does, the indexes' upkeep gives way to it (index-upkeep.ts).
  const locks = createKeyedMutex({
    around: async (rel, fn) => {
      const exit = shared.indexing.enter()
      try {
        return await store.withPathLock(rel, fn)
      } finally {
        exit()
      }
    },
  })
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
    drain: syncTrigger.drain,
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
  return { locks, inFlight, folders, files, writes, flush, entries }
}

export type Writing = ReturnType<typeof wireWrites>

/**
 * Removes temp files of interrupted writes, under each target's write lock (so writes may
 * run meanwhile). They sit next to their target: MEMORY.md at the top, the rest in
 * writable folders. A folder that cannot be read is left (logged): the files in it are
 * hidden and never indexed, and the space serves the rest.
 */
export async function sweepTempFiles({ def, root, log }: SpaceWiring, locks: Writing['locks']): Promise<void> {
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
