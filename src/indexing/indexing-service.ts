/**
 * The indexing facade the routes use: request a sync, read the status (SPEC §5) and the
 * readiness verdict. It owns no state of its own beyond remembering the first sync.
 */
import type { EmbedderStatus } from '../providers/types.js'
import type { SyncProgress } from './sync-progress.js'
import type { EmbeddingCache, SpaceStore, StorageEngine } from '../store/port.js'
import { appError, codeOfFsError, isAppError } from '../shared/errors.js'
import { publicErrorMessage } from '../shared/public-error.js'
import { ANALYZER_VERSION } from '../text/analyzer.js'
import type { SyncResult } from './sync-result.js'
import type { LastSync, SyncCoordinator } from './sync-coordinator.js'
import type { SyncTrigger } from './sync-trigger.js'

/** Per-file errors listed in the status; the log has all of them. */
const MAX_FILE_ERRORS_SHOWN = 20

export type IndexingServiceDeps = {
  store: Pick<SpaceStore, 'counts' | 'isOpen' | 'pendingVectorCount'>
  /** Where the index lives and whether it answers (store/port.ts StorageEngine). */
  engine: Pick<StorageEngine, 'kind' | 'keywordTokenizer' | 'health'>
  coordinator: Pick<SyncCoordinator, 'request' | 'status' | 'stopping'>
  syncTrigger: Pick<SyncTrigger, 'status'>
  /** The full pass running now (indexer.ts), or null. */
  progress: () => SyncProgress | null
  /** The embedder now: in use, pending (waiting for its server at start-up) or none. */
  embedding: () => EmbedderStatus
  cache: Pick<EmbeddingCache, 'size'> | null
}

/** When and how a sync ended, without its counts. */
export function syncOutcome(last: LastSync) {
  return {
    at: last.at,
    ok: last.ok,
    full: last.full,
    reason: last.reason,
    durationMs: last.durationMs,
    ...(last.error === undefined ? {} : { error: last.error }),
  }
}

export function createIndexingService(deps: IndexingServiceDeps) {
  const { store, coordinator } = deps

  /**
   * Starts or joins a sync. It rejects with the client's error when it was refused (a 4xx:
   * the folder was replaced, the index is busy), with SHUTTING_DOWN when the service's
   * shutdown cut it off (whatever the pass failed on then: the abort, or a closed pool),
   * with STORAGE_FULL when the index volume ran out of room (the files are untouched and
   * indexed once there is room), with INDEX_UNAVAILABLE when the database went away (the
   * service syncs again by itself once it answers), else SYNC_FAILED.
   */
  function requestSync(opts: { full: boolean; reason: string }): Promise<SyncResult> {
    return coordinator.request(opts).catch((err: unknown) => {
      if (isAppError(err) && (err.statusCode < 500 || err.code === 'INDEX_UNAVAILABLE')) throw err
      if (coordinator.stopping()) throw appError('SHUTTING_DOWN', undefined, { cause: err })
      if (codeOfFsError(err)?.code === 'STORAGE_FULL') {
        throw appError(
          'STORAGE_FULL',
          'The index ran out of disk space (MNEMO_DATA_DIR): the files are unchanged and are indexed once there is room',
          { cause: err },
        )
      }
      throw appError('SYNC_FAILED', `Sync failed: ${publicErrorMessage(err)}`, { cause: err })
    })
  }

  async function status() {
    const embedding = deps.embedding()
    const sources = { memory: { files: 0, chunks: 0 }, sessions: { files: 0, chunks: 0 } }
    for (const row of await store.counts()) sources[row.source] = { files: row.files, chunks: row.chunks }
    const vectorsPending = embedding.state === 'none' ? 0 : await store.pendingVectorCount()
    const sync = coordinator.status()
    const worker = deps.syncTrigger.status()
    const last = sync.lastSync
    return {
      files: sources.memory.files + sources.sessions.files,
      chunks: sources.memory.chunks + sources.sessions.chunks,
      sources,
      embedding: {
        provider: embedding.provider,
        model: embedding.model,
        dims: embedding.dims,
        state: embedding.state,
        ...(embedding.error === undefined ? {} : { error: embedding.error }),
        ...(embedding.nextProbeAt === undefined ? {} : { nextProbeAt: embedding.nextProbeAt }),
      },
      vectorBackend: embedding.backend,
      // Pending: every chunk waits for the provider.
      vectorsPending,
      keywordTokenizer: `${ANALYZER_VERSION}; ${deps.engine.keywordTokenizer}`,
      engine: { kind: deps.engine.kind, ...(await deps.engine.health()) },
      dirty: worker.dirty || sync.queued,
      watching: worker.watching,
      watch: worker.watch,
      syncing: sync.syncing,
      rebuilding: sync.rebuilding,
      queued: sync.queued,
      completedSyncs: sync.completedSyncs,
      progress: deps.progress(),
      lastSync: last && {
        ...syncOutcome(last),
        ...(last.result && {
          scanned: last.result.scanned,
          indexed: last.result.indexed,
          unchanged: last.result.unchanged,
          deleted: last.result.deleted,
          skipped: last.result.skipped,
          chunks: last.result.chunks,
          malformedLines: last.result.malformedLines,
          unreadable: last.result.unreadable,
          fileErrors: last.result.errors.slice(0, MAX_FILE_ERRORS_SHOWN),
          embedded: last.result.embedded,
          embedCacheHits: last.result.embedCacheHits,
          embeddingTokens: last.result.embeddingTokens,
          ...(last.result.embedError === undefined ? {} : { embedError: last.result.embedError }),
        }),
      },
      embeddingCacheEntries: (await deps.cache?.size()) ?? 0,
    }
  }

  function readiness() {
    const sync = coordinator.status()
    const open = store.isOpen()
    const initialDone = sync.completedSyncs > 0
    const last = sync.lastSync
    return {
      ready: open && initialDone && last?.ok === true,
      checks: {
        index: open ? ('open' as const) : ('closed' as const),
        initialSync: initialDone ? ('done' as const) : ('pending' as const),
        lastSync: last === null ? ('none' as const) : last.ok ? ('ok' as const) : ('failed' as const),
      },
    }
  }

  return { requestSync, status, readiness, lastSync: () => coordinator.status().lastSync }
}

export type IndexingService = ReturnType<typeof createIndexingService>
