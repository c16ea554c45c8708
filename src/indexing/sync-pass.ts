/**
 * One sync pass over some files into some indexes: reads each file (unless its stat or
 * hash shows it unchanged), prepares its chunks, embeds them when an index stores vectors,
 * and writes batches in one transaction per index; then drops files that are gone and fills
 * vectors still pending. Background passes (syncs, rebuilds) work in short slices and small
 * batches and give way to searches in progress; a write's own pass does not pause, since
 * its caller is waiting for it.
 */
import type { Config } from '../config/config.js'
import type { FileRecord } from '../domain/chunks.js'
import type { IndexChange } from '../events/space-events.js'
import type { Turns } from '../shared/async.js'
import type { Foreground } from '../shared/foreground.js'
import type { Logger } from '../shared/logger.js'
import type { MemoryReclaimer } from '../shared/memory-reclaimer.js'
import type { ReadSequence, SpaceWriter } from '../store/port.js'
import type { ScannedFile } from './file-scanner.js'
import { createPassBatch, type PassTargets } from './pass-batch.js'
import { createPassPace } from './pass-pace.js'
import { createPassRead, type BegunRead, type Gone } from './pass-read.js'
import { createPassVectors } from './pass-vectors.js'
import type { PreparedFile, PrepareCache } from './prepare-file.js'
import type { PrepareElsewhere, PrepareOffThread } from './read-there.js'
import { createProgress } from './sync-progress.js'
import { emptySyncResult, type SyncResult } from './sync-result.js'
import type { Vectorizer } from './vectorizer.js'

/**
 * Files begun ahead of the one visited when files are prepared elsewhere (lookahead), and
 * the most bytes they may hold in all beyond the first: what their texts and rows keep in
 * memory meanwhile (a few times their size).
 */
const LOOKAHEAD_FILES = 8
const LOOKAHEAD_BYTES = 1024 * 1024
export type SyncOptions = {
  /** Re-read every file, even unchanged ones. */
  full: boolean
  reason: string
  /** Compare with and write to this index only (a rebuild's new index); default: live. */
  into?: IndexTarget
  /** Stops the pass between files and batches (shutdown, a cancelled rebuild). */
  signal?: AbortSignal
  /** A request waits for this pass (an agent's first sync): it does not pause for searches. */
  urgent?: boolean
}

/** What a sync needs of an index. */
export type IndexTarget = SpaceWriter

/** What a pass needs besides its files: shared by every pass of one indexer. */
export type PassContext = {
  readSeq: ReadSequence
  foreground: Pick<Foreground, 'whenIdle' | 'quietFor'>
  vectorizer: Pick<Vectorizer, 'vectorize'> | null
  chunking: Config['chunking']
  maxFileBytes: number
  prepareCache: PrepareCache
  /**
   * Reads and prepares the new files of full passes on another thread (read-there.ts; a
   * write's own pass reads and prepares here). Such a pass goes on to the next file while a
   * batch is written, so the main thread writes one batch while other threads read and
   * prepare the next.
   */
  prepareElsewhere?: PrepareElsewhere | undefined
  /** Shared by every pass of every agent: one pass's slice per turn of the event loop. */
  turns: Pick<Turns, 'next'>
  /** Told how many bytes of file text were read, so memory is given back after big work. */
  reclaimer?: Pick<MemoryReclaimer, 'worked' | 'hold'> | undefined
  log: Logger
  now: () => number
  /** Told of each file a pass into the live index wrote or dropped, once written (GET /events). */
  announce?: ((change: IndexChange) => void) | undefined
}

/**
 * A pass's state: the batch being built, its counters, and how it writes. `kind`: a full
 * scan nobody waits for (`background`), one a request waits for (an agent's first sync),
 * or a write's own pass over the files it named (`write`).
 */
export function startPass(
  ctx: PassContext,
  opts: SyncOptions,
  base: IndexTarget,
  targets: PassTargets,
  kind: 'background' | 'waited' | 'write',
) {
  const background = kind === 'background'
  const { log } = ctx
  const started = performance.now()
  const result = emptySyncResult(opts.full, opts.reason)
  const progress = createProgress({ full: opts.full, reason: opts.reason, log, now: ctx.now })
  const { slicer, steps, batchLimit } = createPassPace({
    foreground: ctx.foreground,
    turns: ctx.turns,
    background,
    // A sync's pass is followed by its indexes' compaction (indexer.ts); a write's is not.
    compactsAfter: kind !== 'write',
    store: base,
    signal: opts.signal,
  })
  const elsewhere = elsewhereFor(ctx, kind)
  const vectors = createPassVectors({ vectorizer: () => ctx.vectorizer, result, progress, log, signal: opts.signal })
  // A rebuild's passes into its new index announce nothing: the rebuild announces its end.
  const announce = opts.into ? undefined : ctx.announce
  const batch = createPassBatch({
    targets,
    steps,
    embed: (files) => vectors.ofBatch(files),
    announce,
    overlaps: base.overlapsWrites === true || elsewhere !== undefined,
    signal: opts.signal,
  })
  const gone: Gone[] = []
  const reader = createPassRead({
    ctx,
    full: opts.full,
    background,
    slicer,
    elsewhere,
    result,
    gone,
    touch: (record) => batch.touch(record),
    log,
    signal: opts.signal,
  })

  /**
   * Reads `file` and queues it for writing unless it is unchanged. `begun`: its read, begun
   * while the files before it were being prepared and written (the indexer reads ahead, so
   * the wait for the disk, and a preparation elsewhere, overlap that work).
   */
  async function visit(
    file: ScannedFile,
    prev: FileRecord | undefined,
    force: boolean,
    begun?: Promise<BegunRead>,
  ): Promise<void> {
    opts.signal?.throwIfAborted()
    const read = await (begun ?? reader.begin(file, prev, force))
    let prepared: PreparedFile | null
    if (read.rows) {
      const rows = await read.rows
      if (!rows.ok) throw rows.error
      prepared = rows.value
    } else prepared = await reader.rowsOf(file, prev, force, read)
    if (prepared) {
      batch.add(prepared)
      result.indexed++
      result.chunks += prepared.chunks.length
      if (batch.chunks() >= batchLimit()) await batch.commit()
      await slicer.maybeYield()
    }
    progress.fileDone()
  }

  /** Drops the files found gone so far from the index (the pass goes on). */
  async function dropGone(): Promise<void> {
    const dropped = gone.splice(0)
    await batch.writeAll({ remove: dropped.map((g) => ({ path: g.path, readSeq: g.readSeq })) })
    result.deleted += dropped.filter((g) => g.known).length
    for (const g of dropped) if (g.known) announce?.({ kind: 'unindexed', path: g.path })
  }

  /** Writes what is queued, drops the files that are gone, fills pending vectors. */
  async function finish(withPending: boolean): Promise<SyncResult> {
    await batch.commit()
    await batch.written()
    progress.phase('deleting')
    await dropGone()
    if (withPending && ctx.vectorizer && base.storesVectors()) {
      progress.phase('embedding')
      await vectors.fillPending(base, steps)
      result.vectorsPending = await base.pendingVectorCount()
    }
    result.durationMs = Math.round(performance.now() - started)
    return result
  }

  /** Waits for a write still in flight when the pass failed before its finish. */
  const settle = () => batch.written().catch(() => undefined)
  /** Lets each index the pass wrote to reorganise what it wrote (SpaceWriter.compact), at the pass's pace. */
  async function compact(): Promise<void> {
    for (const target of targets.all()) await target.compact?.(steps)
  }
  const { begin, unreadable } = reader
  return {
    result,
    gone,
    begin,
    visit,
    dropGone,
    finish,
    compact,
    settle,
    unreadable,
    progress,
    lookahead: lookaheadOf(base, elsewhere),
  }
}

/**
 * Where a pass reads and prepares files: elsewhere (the engine's threads), as background work
 * when nobody waits for it. A write's own pass reads and prepares here: mostly an append resumed from its
 * checkpoint or a small file, for which a trip behind the searches in the threads' queue
 * costs more than it saves (flush p50 under 16 mixed clients was about 20 % higher with it).
 */
function elsewhereFor(ctx: PassContext, kind: 'background' | 'waited' | 'write'): PrepareOffThread | undefined {
  const { prepareElsewhere } = ctx
  if (!prepareElsewhere || kind === 'write') return undefined
  return (input, local) => prepareElsewhere(input, local, kind === 'background')
}

/**
 * Files a full pass begins ahead of the one it visits (at least one when `files` > 0, else
 * up to `bytes` of them in all). None for a store that overlaps writes: it reads the next
 * file while writing. One whose read waits on the disk while the one before it is prepared
 * and written (that wait was about 15 % of a first sync). When files are prepared
 * elsewhere, several: their preparations then wait in the threads' queues, not the main
 * thread for each of them (a thread may be held by a checkpoint's disk sync meanwhile);
 * a first sync of 10,001 chunks in 200 files took about 5 % less with 5 ahead than with 2.
 */
function lookaheadOf(base: IndexTarget, elsewhere: PrepareOffThread | undefined) {
  if (base.overlapsWrites) return { files: 0, bytes: 0 }
  return elsewhere ? { files: LOOKAHEAD_FILES, bytes: LOOKAHEAD_BYTES } : { files: 1, bytes: 0 }
}
