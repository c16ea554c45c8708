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
import type { Foreground } from '../shared/foreground.js'
import type { Logger } from '../shared/logger.js'
import { scanSources, statSource, type ScannedFile, type SourceRoots } from './file-scanner.js'
import type { PrepareCache } from './prepare-file.js'
import type { ReadSequence } from '../store/port.js'
import { startPass, type IndexTarget, type PassContext, type SyncOptions } from './sync-pass.js'
import type { SyncResult } from './sync-result.js'
import type { Vectorizer } from './vectorizer.js'

export type IndexerDeps = {
  /** The index searches read: what syncs compare files with unless told otherwise. */
  live: IndexTarget
  /** Every index a change is written to, looked up at each commit. */
  targets: () => readonly IndexTarget[]
  readSeq: ReadSequence
  /** Searches in progress, which background passes give way to. */
  foreground: Pick<Foreground, 'whenIdle'>
  /** The vectorizer now (null while no embedding provider is bound), asked at each use. */
  vectorizer: () => Pick<Vectorizer, 'vectorize'> | null
  roots: SourceRoots
  /** Chunk terms and file checkpoints (prepare-file.ts), shared by every agent's indexer. */
  prepareCache: PrepareCache
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
    reclaimer: deps.reclaimer,
    turns: deps.turns,
    log: deps.log,
    now: deps.now ?? Date.now,
    announce: deps.announce,
  }

  /** Scans every source and syncs the index with it. */
  async function sync(opts: SyncOptions): Promise<SyncResult> {
    const base = opts.into ?? deps.live
    const into = opts.into
    const pass = startPass(ctx, opts, base, into ? () => [into] : deps.targets, opts.urgent !== true)
    running.add(pass.progress)
    const release = deps.reclaimer?.hold()
    try {
      // Files missing from the scan are gone as of this moment: a file created and indexed
      // after it carries a newer read and is not deleted.
      const scanSeq = await deps.readSeq.next()
      const scanned = await scanSources(deps.roots, pass.unreadable)
      pass.result.scanned = scanned.length
      pass.progress.files(scanned.length)
      const known = new Map((await base.listFiles()).map((f) => [f.path, f]))
      // A store that does not overlap writes (SQLite) gets one file read ahead: its read waits
      // on the disk while the one before it is prepared and written (that wait was about 15 %
      // of a first sync). One that does (PostgreSQL) reads the next file during the write.
      const begin = (file: ScannedFile | undefined) =>
        file && !base.overlapsWrites ? pass.begin(file, known.get(file.rel), false) : undefined
      let ahead = begin(scanned[0])
      for (let i = 0; i < scanned.length; i++) {
        const file = scanned[i] as ScannedFile
        const prev = known.get(file.rel)
        known.delete(file.rel)
        const begun = ahead
        ahead = begin(scanned[i + 1])
        await pass.visit(file, prev, false, begun)
      }
      for (const path of known.keys()) pass.gone.push({ path, readSeq: scanSeq, known: true })
      return await pass.finish(true)
    } finally {
      await pass.settle()
      running.delete(pass.progress)
      release?.()
    }
  }

  /** Re-reads the given sources (whatever their stat says) into every write target. */
  async function syncPaths(paths: readonly string[], reason: string): Promise<SyncResult> {
    const pass = startPass(ctx, { full: false, reason }, deps.live, deps.targets, false)
    const release = deps.reclaimer?.hold()
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
      release?.()
    }
  }

  /**
   * The full passes running now (a sync, or a rebuild's pass into its new index), newest
   * last; path passes of writes are too short to report.
   */
  const progress = (): SyncProgress | null => [...running].at(-1)?.snapshot() ?? null

  return { sync, syncPaths, progress }
}

export type Indexer = ReturnType<typeof createIndexer>
