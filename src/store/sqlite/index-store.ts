/**
 * The index store owns a SQLite connection. Services call its methods and never hold a raw
 * connection, so the connection can be replaced (the rebuild swap, replaceWith) without
 * re-wiring them. The writer store (one per process) creates the schema and runs write
 * transactions; read-only stores serve the search workers. Term statistics (document
 * frequencies, corpus size) are cached while the chunks stay as they are (term-stats.ts),
 * looked at again with each new generation: the writer starts one with each transaction or
 * swap, a reader whenever SQLite's data_version shows another connection committed.
 */
import fs from 'node:fs'
import path from 'node:path'
import { createTermDocs } from './term-docs.js'
import { createChunksRepo, type ChunksRepo } from './chunks-repo.js'
import { openReader, openWriter, wantedVectors, type IndexStoreOptions, type Opened } from './open-index.js'
import { createSearchRepo, type SearchRepo } from './search-repo.js'
import { createStagedChanges } from './staged-changes.js'
import { createFtsCompaction } from './fts-compaction.js'
import {
  createImpactLists,
  LIST_KEEP,
  LIST_MIN_DOC_FREQ,
  LIST_MIN_ROWS,
  type ImpactListOptions,
} from './impact-lists.js'
import { createListCandidates } from './list-candidates.js'
import { createRareCandidates } from './rare-candidates.js'
import { createRareLists, RARE_MAX_DOC_FREQ, RARE_MIN_ROWS, type RareListOptions } from './rare-lists.js'
import type { Db } from './database.js'
import type {
  EntryQuery,
  FileChanges,
  KeywordQuery,
  SourceCounts,
  StepOptions,
  VectorConfig,
  VectorIndex,
  VectorPut,
} from '../port.js'
import { createScanIndex } from './scan-index.js'
import { createVec0Index } from './vec0-index.js'
import { createQuantizedVectors } from './quantized-vectors.js'
import { createLogUpkeep } from './log-upkeep.js'
import { createWalBacklog } from './wal-backlog.js'
import { createVolumeRoom } from './volume-room.js'
import { createVectorRepo, type VectorRepo } from './vector-repo.js'
import { sameVectorConfig } from './vector-schema.js'
import { createTermStats } from './term-stats.js'

/**
 * FTS5 merges segments as part of the commit that adds one (automerge) or, when a level
 * holds too many, all at once (crisismerge): tens of ms in one synchronous commit during a
 * bulk build. A scratch index turns automatic merging off and is merged in small explicit
 * steps between commits instead (mergeStep), with a high crisis limit as a safety net; the
 * FTS5 defaults (4, 16) are restored before it becomes the live index.
 */
const SCRATCH_FTS = { automerge: 0, crisismerge: 64 }
const LIVE_FTS = { automerge: 4, crisismerge: 16 }
/** Pages of FTS5 merge work per step: about 1 ms. */
const MERGE_STEP_PAGES = 16
/** Meta key of the chunks written since the FTS5 index was last merged into one segment (fts-compaction.ts). */
const UNMERGED_KEY = 'fts_unmerged_chunks'

/** Finds nothing: an index without vectors. */
const NO_VECTORS: VectorIndex = { nearest: () => [] }

/**
 * How the repositories over a connection are made: `quantizedFrom`, chunks from which
 * searches pre-select by a quantised copy of the vectors; `lists`, which terms get impact
 * lists, `rare` rare lists; `readonly`, a reader's connection (it only reads the lists).
 */
type BindOptions = { quantizedFrom: number; lists: ImpactListOptions; rare: RareListOptions; readonly: boolean }

/** The repositories over one connection; `generation` tells when the index changed. */
function bind(opened: Opened, generation: () => number, { quantizedFrom, lists, rare, readonly }: BindOptions) {
  const vectorRepo: VectorRepo = createVectorRepo(opened.db, opened.vectors)
  const reads = createSearchRepo(
    opened.db,
    { fromList: createListCandidates(opened.db, lists.keep), fromRare: createRareCandidates(opened.db) },
    generation,
  )
  const { vectors } = opened
  const heads = (ids: number[]) => reads.chunkHeads(ids)
  const { floatCopy } = vectorRepo
  // Kept by the writer only; readers read the counts it keeps (search-repo.ts).
  const termDocs = readonly ? null : createTermDocs(opened.db)
  const chunks = () => reads.corpus().rows
  const quantized =
    vectors && floatCopy && quantizedFrom > 0
      ? { ...createQuantizedVectors({ ...vectors, ...floatCopy, generation, chunks }, quantizedFrom), ...floatCopy }
      : null
  const vectorIndex: VectorIndex = !vectors
    ? NO_VECTORS
    : vectors.backend === 'scan'
      ? createScanIndex({ all: () => vectorRepo.all(), heads, generation, dims: vectors.dims, shards: vectors.shards })
      : createVec0Index(vectorRepo, heads, quantized)
  // Prepared once: db.pragma() compiles its statement on every call (about 8 µs against 2 µs),
  // and a reader asks at every search whether another connection committed.
  const dataVersion = opened.db.prepare<[], number>('PRAGMA data_version').pluck()
  return {
    ...opened,
    repo: createChunksRepo(opened.db, vectorRepo, opened.storesVectors, termDocs),
    reads,
    // Read-only connections only read the lists.
    lists: termDocs && createImpactLists(opened.db, lists, termDocs),
    rare: readonly ? null : createRareLists(opened.db, rare),
    vectorIndex,
    dataVersion: (): number => dataVersion.get() as number,
  }
}

export function createIndexStore(opts: IndexStoreOptions) {
  const readonly = opts.readonly ?? false
  const first = readonly ? { ...openReader(opts), recreated: false } : openWriter(opts)
  let commits = 0
  /** The writer counts its own commits; a reader asks SQLite whether others committed. */
  const generation = (): number => (readonly ? state.dataVersion() : commits)
  const binding: BindOptions = {
    quantizedFrom: opts.quantizedFrom ?? 0,
    lists: opts.impactLists ?? { minDocFreq: LIST_MIN_DOC_FREQ, keep: LIST_KEEP, minRows: LIST_MIN_ROWS },
    rare: opts.rareLists ?? { maxDocFreq: RARE_MAX_DOC_FREQ, minRows: RARE_MIN_ROWS },
    readonly,
  }
  let state = bind(first, generation, binding)
  const setFtsOptions = (options: Record<string, number>) =>
    state.db.transaction(() => state.repo.setFtsOptions(options))()
  if (opts.scratch) setFtsOptions(SCRATCH_FTS)
  let open = true
  /** Connections this store was bound to: a swap's new index numbers its chunk writes anew. */
  let binds = 1
  const stats = createTermStats({
    generation,
    contentVersion: () => `${binds}:${state.reads.chunksVersion()}`,
    docFreq: (term) => state.reads.docFreq(term),
    rows: () => state.reads.corpus().rows,
    partial: () => state.reads.partial(),
  })

  const space = createVolumeRoom(path.dirname(opts.dbPath))
  // The writer never checkpoints inside a commit when the search workers can; a scratch
  // index has no log.
  const { checkpoint } = opts
  const backlog = checkpoint && !opts.scratch ? createWalBacklog(opts.dbPath) : null
  const logUpkeep =
    checkpoint && backlog
      ? createLogUpkeep({
          backlogBytes: () => backlog.bytes(),
          checkpoint: () => checkpoint(opts.dbPath),
          limitBytes: () => space.walCheckpointBytes(),
          hasRoom: () => hasRoom(),
          smallWrite: () => transaction((repo) => repo.setMeta('log_restarted_at', new Date().toISOString())),
          isOpen: () => open,
        })
      : null

  const transaction = <T>(fn: (r: ChunksRepo) => T): T => {
    let result: T
    try {
      result = state.db.transaction(() => fn(state.repo))()
    } catch (err) {
      // No room (the reserve refused new chunks, or the log could not grow): nothing
      // commits after this to ask for the checkpoint that can give room back, so ask now.
      if ((err as { code?: unknown } | null)?.code === 'SQLITE_FULL') logUpkeep?.roomShort()
      throw err
    }
    commits++
    logUpkeep?.afterCommit()
    return result
  }
  /** Pages free inside the index (left by deleted chunks), in bytes: new chunks reuse them. */
  const freedBytes = () =>
    (state.db.pragma('freelist_count', { simple: true }) as number) *
    (state.db.pragma('page_size', { simple: true }) as number)
  const hasRoom = () => space.hasRoom(freedBytes)
  const compaction = createFtsCompaction({
    written: () => Number(state.repo.getMeta(UNMERGED_KEY) ?? 0),
    setWritten: (chunks) => transaction((repo) => repo.setMeta(UNMERGED_KEY, String(chunks))),
    mergeAllStep: () => transaction((repo) => repo.mergeStep(MERGE_STEP_PAGES, true)),
    rows: () => state.reads.corpus().rows,
    // Room for a copy of the whole index (its file is more than its FTS5 data); a rebuild's
    // new index keeps no reserve (it is deleted when it fails).
    hasRoom: () => opts.scratch === true || space.hasRoomFor(fs.statSync(opts.dbPath).size, freedBytes),
  })
  const staged = createStagedChanges({
    transaction,
    // A rebuild's new index is deleted when it fails; it needs no reserve.
    ...(!opts.scratch && { hasRoom }),
  })
  /**
   * One small step of the FTS5 segment merging a scratch index does between commits;
   * true while there may be more to do. Nothing for other indexes (FTS5 merges those).
   */
  const mergeStep = (): boolean =>
    opts.scratch ? state.db.transaction(() => state.repo.mergeStep(MERGE_STEP_PAGES))() : false
  /**
   * A scratch index merges one step after each commit, inside the slice that made it: every
   * transaction adds an FTS5 segment, and a big file is written in hundreds of them, so
   * merging only between files let segments pile up to a crisis merge (1 s in one piece,
   * measured on a rebuild of three 8 MB Chinese files).
   */
  const mergeThen = async (between: () => Promise<void>): Promise<void> => {
    mergeStep()
    await between()
  }
  // Staged changes a process that died left half-way are settled in the background; writes
  // to their paths wait for it. A read-only store or a rebuild's new index has none to settle.
  const recovered = readonly || opts.scratch ? Promise.resolve(0) : staged.recover()
  recovered.catch(() => undefined)

  /**
   * Builds or extends the impact lists and the rare lists when due (impact-lists.ts,
   * rare-lists.ts). Lists never change what
   * a search finds, so their commits leave the term statistics' generation as it is. A swap
   * (replaceWith) closes the connection they were read from: the new index's turn comes
   * after the next sync.
   */
  async function refreshLists(stepOpts: StepOptions): Promise<void> {
    const bound = state
    const write = (fn: () => void) => {
      if (state !== bound) throw new Error('the index was swapped')
      bound.db.transaction(fn)()
      logUpkeep?.afterCommit()
    }
    try {
      await bound.lists?.refresh(write, stepOpts)
      await bound.rare?.refresh(write, stepOpts)
    } catch (err) {
      if (state === bound && open) throw err
    }
  }

  /** Folds the WAL into the main file and closes the connection. */
  function closeClean(db: Db): void {
    db.pragma('wal_checkpoint(TRUNCATE)')
    db.close()
  }

  return {
    dbPath: opts.dbPath,
    /** True when an incompatible older index was deleted at open. */
    recreated: first.recreated,
    /** How the vectors in the index are stored, or null without vectors. */
    get vectors(): VectorConfig {
      return state.vectors
    },
    /**
     * Whether the index's vectors match the configured layout. False while an index built
     * for other embedding settings serves until its rebuild is swapped in.
     */
    storesVectors: (): boolean => state.storesVectors && sameVectorConfig(state.vectors, wantedVectors(opts)),
    isOpen: () => open,
    /** Increases whenever the index changed (commits, swaps, or others' commits for a reader). */
    generation,
    /** Runs `fn` in one write transaction; readers see all of it or nothing. */
    transaction,
    /**
     * Writes files' changes in transactions of bounded size (staged-changes.ts): a file of
     * any size never holds the event loop for long, and readers see each file whole.
     */
    applyChanges: async (changes: FileChanges, stepOpts: StepOptions): Promise<void> => {
      await staged.apply(changes, opts.scratch ? { ...stepOpts, between: () => mergeThen(stepOpts.between) } : stepOpts)
      compaction.wrote(changes.replace?.reduce((n, change) => n + change.chunks.length, 0) ?? 0)
    },
    /**
     * Merges the FTS5 index into one segment when enough was written since
     * (fts-compaction.ts). The merge is only for speed: it waits while the volume is short
     * of room, and a step that finds none leaves the index as it was (in more segments,
     * searched the same) for a later pass.
     */
    async compact(stepOpts: StepOptions): Promise<void> {
      try {
        await compaction.compact(stepOpts)
        await refreshLists(stepOpts)
      } catch (err) {
        if ((err as { code?: unknown } | null)?.code !== 'SQLITE_FULL') throw err
      }
    },
    /** Whether no change is being written (a swap must not cut one off). */
    isSettled: (): boolean => staged.isSettled(),
    /** Resolves once no change is being written. */
    settled: (): Promise<void> => staged.settled(),
    /** Settles changes a process that died left half-way; resolves with how many (logged by the caller). */
    recovered,
    /** One step of a scratch index's FTS5 merging (above); a rebuild finishes with them. */
    mergeStep,
    listFiles: () => state.repo.listFiles(),
    findEntries: (q: EntryQuery) => state.repo.findEntries(q),
    maxReadSeq: () => state.repo.maxReadSeq(),
    getFile: (filePath: string) => state.repo.getFile(filePath),
    candidates: (q: KeywordQuery) => state.reads.candidates(q, stats.docFreqOf),
    newestMatches: (...args: Parameters<SearchRepo['newestMatches']>) => state.reads.newestMatches(...args),
    chunkTexts: (...args: Parameters<SearchRepo['chunkTexts']>) => state.reads.chunkTexts(...args),
    chunkHeads: (...args: Parameters<SearchRepo['chunkHeads']>) => state.reads.chunkHeads(...args),
    nearest: (...args: Parameters<VectorIndex['nearest']>) => state.vectorIndex.nearest(...args),
    counts: (): SourceCounts[] => state.repo.counts(),
    getMeta: (key: string) => state.repo.getMeta(key),
    setMeta: (key: string, value: string): void => transaction((repo) => repo.setMeta(key, value)),
    /** Stores vectors in one transaction (about 3 ms for 64 with sqlite-vec). */
    putVectors: (items: readonly VectorPut[]): void =>
      transaction((repo) => {
        for (const { id, path: chunkPath, source, vector } of items) repo.putVector(id, chunkPath, source, vector)
      }),
    pendingVectors: (limit: number) => state.repo.pendingVectors(limit),
    pendingVectorCount: () => state.repo.pendingVectorCount(),
    /** Term statistics (document frequencies from the FTS5 vocabulary), cached while the chunks stay (term-stats.ts). */
    corpusStats: stats.corpusStats,
    keywordStats: stats.keywordStats,
    /**
     * Replaces this index with a complete one built in another file (`next`, a writer store
     * that is closed by this call) and reopens on it. Both files are checkpointed and
     * closed first, then this file's WAL and shared memory are removed and `next` is
     * renamed over it: the rename is the commit point, so a crash before it leaves the old
     * index whole and a crash after it the new one. Every other connection to this file
     * (search workers) must be closed before the call.
     */
    replaceWith(next: { dbPath: string; closeForSwap(): void }): void {
      if (readonly) throw new Error('a read-only store cannot be replaced')
      const nextPath = next.dbPath
      next.closeForSwap()
      closeClean(state.db)
      // No connection of this process has the file open now: the wal-index goes with it.
      backlog?.close()
      // Held open across the rename, so the old file's blocks are freed when this descriptor
      // closes (in the background), not inside the rename (about 10 ms for a 30 MB index).
      const oldFile = fs.openSync(opts.dbPath, 'r')
      try {
        for (const suffix of ['-wal', '-shm']) fs.rmSync(`${opts.dbPath}${suffix}`, { force: true })
        fs.renameSync(nextPath, opts.dbPath)
        fsyncPath(path.dirname(opts.dbPath))
      } finally {
        // Reopens whichever index the file now holds: the new one, or the old one when the
        // rename failed.
        state = bind(openWriter(opts), generation, binding)
        binds++
        commits++
        fs.close(oldFile, () => undefined)
      }
    },
    /**
     * Writes the file's pages to disk (fsync through another descriptor, off the event
     * loop), so that closeForSwap has little left to flush. Closing that descriptor drops
     * this process's locks on the file (wal-backlog.ts): harmless for a rebuild's scratch
     * file, which no other process opens, and the only file this is called for.
     */
    async flushToDisk(): Promise<void> {
      const handle = await fs.promises.open(opts.dbPath, 'r')
      try {
        await handle.sync()
      } finally {
        await handle.close()
      }
    },
    /**
     * Closes the index as one durable file in WAL mode that can be renamed over the live
     * one (replaceWith).
     */
    closeForSwap(): void {
      if (!open) return
      open = false
      if (opts.scratch) {
        setFtsOptions(LIVE_FTS)
        state.db.pragma('journal_mode = WAL')
      }
      closeClean(state.db)
      fsyncPath(opts.dbPath)
    },
    close(): void {
      if (!open) return
      open = false
      state.db.close()
      backlog?.close()
    },
  }
}

/** Flushes a file's data, or a folder's names (a rename in it), to disk. */
function fsyncPath(p: string): void {
  const fd = fs.openSync(p, 'r')
  try {
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}

export type IndexStore = ReturnType<typeof createIndexStore>
