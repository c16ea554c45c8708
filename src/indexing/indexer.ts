/**
 * Sync passes (sync-pass.ts) over the sources: a full-scan sync lists every source,
 * re-reads files whose size, mtime or SHA-256 changed and drops files that are gone; a path
 * sync (the write API) re-reads the named files only.
 *
 * Changes go to every write target (the live index, and a rebuild's new index while one
 * runs), looked up at each commit. Every read takes a number from the read sequence, and
 * an index ignores a write older than what it holds, so concurrent passes can commit in any
 * order.
 */
import type { Progress, SyncProgress } from './sync-progress.js'
import type { Config } from '../config/config.js'
import type { FileRecord } from '../domain/chunks.js'
import { codeOfFsError } from '../shared/errors.js'
import type { Foreground } from '../shared/foreground.js'
import type { Logger } from '../shared/logger.js'
import { scanSources, statSource, type ScannedFile, type SourceRoots } from './file-scanner.js'
import type { PrepareCache } from './prepare-file.js'
import type { PrepareElsewhere } from './read-there.js'
import type { ReadSequence } from '../store/port.js'
import type { BegunRead } from './pass-read.js'
import { startPass, type IndexTarget, type PassContext, type SyncOptions } from './sync-pass.js'
import type { PassTargets } from './pass-batch.js'
import { onlyInto } from './write-targets.js'
import type { SyncResult } from './sync-result.js'
import type { Vectorizer } from './vectorizer.js'
import { createIndexUpkeep } from './index-upkeep.js'

type Pass = ReturnType<typeof startPass>

export type IndexerDeps = {
  /** The index searches read: what syncs compare files with unless told otherwise. */
  live: IndexTarget
  /** Every index a change is written to, looked up at each commit (write-targets.ts). */
  targets: PassTargets
  readSeq: ReadSequence
  /** Searches in progress, which background passes give way to. */
  foreground: Pick<Foreground, 'whenIdle' | 'quietFor'>
  /**
   * Index passes and writes in progress in every space: each pass (a sync, a rebuild's, a
   * write's own) marks itself here, as writes do (space-writes.ts), and the index's upkeep
   * (index-upkeep.ts) gives way to them.
   */
  indexing: Pick<Foreground, 'enter' | 'whenIdle'>
  /** The vectorizer now (null while no embedding provider is bound), asked at each use. */
  vectorizer: () => Pick<Vectorizer, 'vectorize'> | null
  roots: SourceRoots
  /** Chunk terms and file checkpoints (prepare-file.ts), shared by every agent's indexer. */
  prepareCache: PrepareCache
  /** Prepares big new files on another thread (prepare-file.ts); without it, here. */
  prepareElsewhere?: PrepareElsewhere | undefined
  chunking: Config['chunking']
  maxFileBytes: number
  reclaimer?: PassContext['reclaimer']
  /** Shared by every agent's passes (shared/async.ts createTurns). */
  turns: PassContext['turns']
  log: Logger
  now?: () => number
  /** Told of each file written into or dropped from the live index (GET /events). */
  announce?: PassContext['announce']
}

export function createIndexer(deps: IndexerDeps) {
  const running = new Set<Progress>()
  const ctx = {
    readSeq: deps.readSeq,
    foreground: deps.foreground,
    get vectorizer() {
      return deps.vectorizer()
    },
    chunking: deps.chunking,
    maxFileBytes: deps.maxFileBytes,
    prepareCache: deps.prepareCache,
    prepareElsewhere: deps.prepareElsewhere,
    reclaimer: deps.reclaimer,
    turns: deps.turns,
    log: deps.log,
    now: deps.now ?? Date.now,
    announce: deps.announce,
  }

  const upkeep = createIndexUpkeep({
    live: deps.live,
    foreground: deps.foreground,
    indexing: deps.indexing,
    turns: deps.turns,
    log: deps.log,
  })

  /** Scans every source and syncs the index with it. */
  async function sync(opts: SyncOptions): Promise<SyncResult> {
    const base = opts.into ?? deps.live
    const into = opts.into
    const pass = startPass(ctx, opts, base, into ? onlyInto(into) : deps.targets, opts.urgent ? 'waited' : 'background')
    running.add(pass.progress)
    const release = deps.reclaimer?.hold()
    const exit = deps.indexing.enter()
    try {
      // Files missing from the scan are gone as of this moment: a file created and indexed
      // after it carries a newer read and is not deleted.
      const scanSeq = await deps.readSeq.next()
      const scanned = await scanSources(deps.roots, pass.unreadable, opts.signal)
      pass.result.scanned = scanned.length
      pass.progress.files(scanned.length)
      const known = new Map((await base.listFiles()).map((f) => [f.path, f]))
      const inScan = new Set(scanned.map((f) => f.rel))
      const vanished = [...known.keys()].filter((path) => !inScan.has(path))
      try {
        await visitAll(pass, scanned, known)
        for (const path of vanished) pass.gone.push({ path, readSeq: scanSeq, known: true })
        const result = await pass.finish(true)
        // A rebuild's new index is compacted before it is swapped in; the live one afterwards.
        if (into) await pass.compact()
        else upkeep.later()
        return result
      } catch (err) {
        // A volume out of room refuses new chunks (507), and the pass stops there. The files
        // gone from the sources are dropped all the same: deletions need no room and are what
        // gives it back; a pass that stopped before them left every later one refused too.
        if (codeOfFsError(err)?.code === 'STORAGE_FULL') {
          const dropping = new Set(pass.gone.map((g) => g.path))
          for (const path of vanished) {
            if (!dropping.has(path)) pass.gone.push({ path, readSeq: scanSeq, known: true })
          }
          await pass.dropGone().catch(() => undefined)
        }
        throw err
      }
    } finally {
      await pass.settle()
      running.delete(pass.progress)
      exit()
      release?.()
    }
  }

  /**
   * Visits `scanned` in order, each file begun ahead up to the pass's lookahead (`known`:
   * the index's records of them).
   */
  async function visitAll(pass: Pass, scanned: readonly ScannedFile[], known: Map<string, FileRecord>) {
    // Files begun in scan order: the one visited, and up to the pass's lookahead past it.
    const begun = new Map<number, Promise<BegunRead>>()
    let next = 0
    let begunBytes = 0
    const beginNext = () => {
      const file = scanned[next] as ScannedFile
      begun.set(next, pass.begin(file, known.get(file.rel), false))
      begunBytes += file.sizeBytes
      next++
    }
    const { files: aheadFiles, bytes: aheadBytes } = pass.lookahead
    for (let i = 0; i < scanned.length; i++) {
      if (next === i) beginNext()
      while (
        next < scanned.length &&
        next - i <= aheadFiles &&
        (next === i + 1 || begunBytes + (scanned[next] as ScannedFile).sizeBytes <= aheadBytes)
      ) {
        beginNext()
      }
      const file = scanned[i] as ScannedFile
      const prev = known.get(file.rel)
      known.delete(file.rel)
      const read = begun.get(i)
      begun.delete(i)
      await pass.visit(file, prev, false, read)
      begunBytes -= file.sizeBytes
    }
  }

  /** Re-reads the given sources (whatever their stat says) into every write target. */
  async function syncPaths(paths: readonly string[], reason: string): Promise<SyncResult> {
    const pass = startPass(ctx, { full: false, reason }, deps.live, deps.targets, 'write')
    const release = deps.reclaimer?.hold()
    const exit = deps.indexing.enter()
    try {
      for (const rel of new Set(paths)) {
        const readSeq = await deps.readSeq.next()
        const file = await statSource(deps.roots, rel, pass.unreadable)
        const prev = await deps.live.getFile(rel)
        pass.result.scanned++
        if (file) await pass.visit(file, prev, true)
        else pass.gone.push({ path: rel, readSeq, known: prev !== undefined })
      }
      return await pass.finish(false)
    } finally {
      await pass.settle()
      exit()
      release?.()
    }
  }

  /**
   * The full passes running now (a sync, or a rebuild's pass into its new index), newest
   * last; path passes of writes are too short to report.
   */
  const progress = (): SyncProgress | null => [...running].at(-1)?.snapshot() ?? null

  return {
    sync,
    syncPaths,
    progress,
    /** Ends the index's upkeep in progress between two of its steps (the space closes). */
    stop: upkeep.stop,
    /** Resolves once the index's upkeep is over (tests). */
    compacted: upkeep.done,
  }
}

export type Indexer = ReturnType<typeof createIndexer>
