/**
 * One sync pass over some files into some indexes: reads each file (unless its stat or
 * hash shows it unchanged), prepares its chunks, embeds them when an index stores vectors,
 * and writes batches in one transaction per index; then drops files that are gone and fills
 * vectors still pending. Background passes (syncs, rebuilds) work in short slices and small
 * batches and give way to searches in progress; a write's own pass does not pause, since
 * its caller is waiting for it.
 */
import { createProgress } from './sync-progress.js'
import path from 'node:path'
import type { Config } from '../config/config.js'
import type { Turns } from '../shared/async.js'
import type { Foreground } from '../shared/foreground.js'
import type { Logger } from '../shared/logger.js'
import type { MemoryReclaimer } from '../shared/memory-reclaimer.js'
import { publicErrorMessage } from '../shared/public-error.js'
import type { FileRecord } from '../domain/chunks.js'
import type { FileChanges, ReadSequence, SpaceWriter } from '../store/port.js'
import { decodeText } from '../text/lines.js'
import { createPassPace } from './pass-pace.js'
import { createPassVectors } from './pass-vectors.js'
import { readWorkspaceFile, type ReadResult } from '../files/workspace-fs.js'
import { isUnreadable, type ScannedFile } from './file-scanner.js'
import { sha256 } from '../domain/hashing.js'
import {
  prepareFile,
  type PreparedFile,
  type PrepareCache,
  type PrepareElsewhere,
  type PrepareOffThread,
} from './prepare-file.js'
import { transcriptText } from './transcript.js'
import { emptySyncResult, type SyncResult } from './sync-result.js'
import type { Vectorizer } from './vectorizer.js'
import type { IndexChange } from '../events/space-events.js'

/**
 * Files begun ahead of the one visited when files are prepared elsewhere (lookahead), and
 * the most bytes they may hold in all beyond the first: what their texts and rows keep in
 * memory meanwhile (a few times their size).
 */
const LOOKAHEAD_FILES = 8
const LOOKAHEAD_BYTES = 1024 * 1024
/**
 * A file whose mtime is this close to the moment it was indexed is re-hashed on the next
 * sync even when size and mtime match: a write within the filesystem's timestamp
 * granularity could otherwise go unnoticed (git's "racy clean" rule). In ms.
 */
const RACY_WINDOW_MS = 2000

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

/**
 * A file to drop from the index. `known`: the compared index had it (counted as deleted);
 * the others are still dropped, in case another write target has it.
 */
type Gone = { path: string; readSeq: number; known: boolean }

/** What a pass needs besides its files: shared by every pass of one indexer. */
export type PassContext = {
  readSeq: ReadSequence
  foreground: Pick<Foreground, 'whenIdle' | 'quietFor'>
  vectorizer: Pick<Vectorizer, 'vectorize'> | null
  chunking: Config['chunking']
  maxFileBytes: number
  prepareCache: PrepareCache
  /**
   * Prepares big new files of full passes on another thread (a write's own pass prepares
   * here). Such a pass goes on to the next file while a batch is written, so the main
   * thread writes one batch while another thread prepares the next.
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

const relativePosix = (root: string, abs: string) => path.relative(root, abs).split(path.sep).join('/')

/**
 * A file's visit begun ahead of its turn: its read number, taken first as always, and the
 * read of its bytes when the visit will need them (settled, so an abandoned one is never an
 * unhandled rejection). When files are prepared elsewhere, also the rows it comes to,
 * prepared on another thread while the files before it are written.
 */
export type BegunRead = {
  readSeq: number
  read: Promise<{ ok: true; value: ReadResult } | { ok: false; error: unknown }> | null
  rows?: Promise<{ ok: true; value: PreparedFile | null } | { ok: false; error: unknown }>
}

const unchangedByStat = (prev: FileRecord, file: ScannedFile) =>
  prev.sizeBytes === file.sizeBytes && prev.mtimeMs === file.mtimeMs && prev.mtimeMs < prev.indexedAtMs - RACY_WINDOW_MS

/**
 * A pass's state: the batch being built, its counters, and how it writes. `kind`: a full
 * scan nobody waits for (`background`), one a request waits for (an agent's first sync),
 * or a write's own pass over the files it named (`write`).
 */
export function startPass(
  ctx: PassContext,
  opts: SyncOptions,
  base: IndexTarget,
  writeTo: () => readonly IndexTarget[],
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
    store: base,
    signal: opts.signal,
  })
  // Preparations for this pass, as background work when nobody waits for it. A write's own
  // pass prepares here: mostly an append resumed from its checkpoint or a small file, for
  // which a trip behind the searches in the workers' queue costs more than it saves (flush
  // p50 under 16 mixed clients was about 20 % higher with it).
  const { prepareElsewhere } = ctx
  const elsewhere: PrepareOffThread | undefined =
    prepareElsewhere && kind !== 'write'
      ? (input, chunking, local) => prepareElsewhere(input, chunking, local, background)
      : undefined
  let writes: PreparedFile[] = []
  let touches: FileRecord[] = []
  let batchChunks = 0
  const vectors = createPassVectors({ vectorizer: () => ctx.vectorizer, result, progress, log, signal: opts.signal })
  // A rebuild's passes into its new index announce nothing: the rebuild announces its end.
  const announce = opts.into ? undefined : ctx.announce

  /**
   * The batch being written while the pass prepares the next one, when the store overlaps
   * writes (SpaceWriter.overlapsWrites) or files are prepared elsewhere; its failure is
   * thrown by the next commit or by finish.
   */
  const overlaps = base.overlapsWrites === true || elsewhere !== undefined
  let writing: Promise<void> = Promise.resolve()
  const writeAll = async (changes: FileChanges) => {
    for (const target of writeTo()) await target.applyChanges(changes, steps)
  }

  async function commit(): Promise<void> {
    if (writes.length === 0 && touches.length === 0) return
    opts.signal?.throwIfAborted()
    const w = writes
    const t = touches
    writes = []
    touches = []
    batchChunks = 0
    // Vectors are only worth paying for when some index stores them.
    if (writeTo().some((target) => target.storesVectors())) await vectors.ofBatch(w)
    await writing
    const write = writeAll({ replace: w, touch: t }).then(() => {
      for (const { record: r, chunks } of w) {
        announce?.({ kind: 'indexed', path: r.path, sha256: r.sha256, sizeBytes: r.sizeBytes, chunks: chunks.length })
      }
    })
    if (!overlaps) return write
    writing = write
    write.catch(() => undefined)
  }

  const gone: Gone[] = []

  /** A file or folder the service may not read: counted, logged, listed; the pass goes on. */
  function unreadable(rel: string, err: unknown): void {
    result.unreadable++
    result.errors.push({ path: rel, error: publicErrorMessage(err) })
    log.warn({ path: rel, code: (err as NodeJS.ErrnoException).code }, 'no permission to read; skipped')
  }

  /** Takes `file`'s read number and starts reading it unless its stat shows it need not be. */
  async function begin(file: ScannedFile, prev: FileRecord | undefined, force: boolean): Promise<BegunRead> {
    const readSeq = await ctx.readSeq.next()
    const skip =
      file.sizeBytes > ctx.maxFileBytes || (!opts.full && !force && prev !== undefined && unchangedByStat(prev, file))
    // Opened from its folder's root without following symlinks, like the file API does.
    const read = skip
      ? null
      : readWorkspaceFile(file.root, relativePosix(file.root, file.abs), ctx.maxFileBytes).then(
          (value) => ({ ok: true as const, value }),
          (error: unknown) => ({ ok: false as const, error }),
        )
    const begun: BegunRead = { readSeq, read }
    if (elsewhere) {
      begun.rows = rowsOf(file, prev, force, begun).then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      )
    }
    return begun
  }

  /**
   * The rows `file` comes to once `begun` read it: null when there are none to write (it is
   * unchanged, gone, too big or unreadable; counted here).
   */
  async function rowsOf(
    file: ScannedFile,
    prev: FileRecord | undefined,
    force: boolean,
    begun: BegunRead,
  ): Promise<PreparedFile | null> {
    const { readSeq, read: reading } = begun
    if (file.sizeBytes > ctx.maxFileBytes) {
      result.skipped++
      log.warn(
        { path: file.rel, sizeBytes: file.sizeBytes, maxFileBytes: ctx.maxFileBytes },
        'file too large, not indexed',
      )
      gone.push({ path: file.rel, readSeq, known: prev !== undefined })
      return null
    }
    if (!opts.full && !force && prev && unchangedByStat(prev, file)) {
      result.unchanged++
      return null
    }
    // begin() skips reading exactly the files the two checks above returned for.
    if (reading === null) return null
    let bytes: Buffer
    try {
      const outcome = await reading
      if (!outcome.ok) throw outcome.error
      const read = outcome.value
      // A write's own pass waits only once it has used a whole slice (a flush never does).
      if (background) await slicer.pause()
      else slicer.restart()
      if (read.kind === 'not-found' || read.kind === 'invalid' || read.kind === 'too-large') {
        if (read.kind === 'invalid') log.warn({ path: file.rel, reason: read.reason }, 'file not indexed')
        if (read.kind === 'too-large') result.skipped++
        gone.push({ path: file.rel, readSeq, known: prev !== undefined })
        return null
      }
      bytes = read.bytes
      ctx.reclaimer?.worked(bytes.length)
    } catch (err) {
      if (isUnreadable(err)) unreadable(file.rel, err)
      else {
        result.errors.push({ path: file.rel, error: publicErrorMessage(err) })
        log.warn({ err, path: file.rel }, 'cannot read file')
      }
      return null
    }
    const hash = sha256(bytes)
    const indexedAtMs = ctx.now()
    if (!opts.full && prev && prev.sha256 === hash) {
      touches.push({ ...prev, sizeBytes: bytes.length, mtimeMs: file.mtimeMs, indexedAtMs, readSeq })
      result.unchanged++
      return null
    }
    let text = decodeText(bytes)
    if (file.source === 'sessions') {
      const transcript = transcriptText(text)
      text = transcript.text
      if (transcript.malformed > 0) {
        result.malformedLines += transcript.malformed
        log.warn({ path: file.rel, malformedLines: transcript.malformed }, 'transcript lines that are not JSON skipped')
      }
    }
    // A pass cancelled meanwhile (shutdown) prepares no file begun ahead: that would keep
    // the workers busy, or this thread once they are closed, for rows never written.
    opts.signal?.throwIfAborted()
    const prepared = await prepareFile(
      {
        rel: file.rel,
        text,
        sha256: hash,
        sizeBytes: bytes.length,
        mtimeMs: file.mtimeMs,
        indexedAtMs,
        readSeq,
        source: file.source,
      },
      ctx.chunking,
      slicer,
      { prepare: ctx.prepareCache, key: file.abs },
      elsewhere,
    )
    // A metadata comment it cannot read is indexed as text; whoever wrote it should hear.
    if (prepared.malformed.length > 0) {
      log.warn(
        { path: file.rel, malformedMetadata: prepared.malformed.slice(0, 5) },
        'entry metadata comments that cannot be read are indexed as text',
      )
    }
    return prepared
  }

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
    const read = await (begun ?? begin(file, prev, force))
    let prepared: PreparedFile | null
    if (read.rows) {
      const rows = await read.rows
      if (!rows.ok) throw rows.error
      prepared = rows.value
    } else prepared = await rowsOf(file, prev, force, read)
    if (!prepared) return
    writes.push(prepared)
    result.indexed++
    result.chunks += prepared.chunks.length
    batchChunks += prepared.chunks.length
    if (batchChunks >= batchLimit()) await commit()
    await slicer.maybeYield()
  }

  /** Drops the files found gone so far from the index (the pass goes on). */
  async function dropGone(): Promise<void> {
    const dropped = gone.splice(0)
    await writeAll({ remove: dropped.map((g) => ({ path: g.path, readSeq: g.readSeq })) })
    result.deleted += dropped.filter((g) => g.known).length
    for (const g of dropped) if (g.known) announce?.({ kind: 'unindexed', path: g.path })
  }

  /** Writes what is queued, drops the files that are gone, compacts, fills pending vectors. */
  async function finish(withPending: boolean): Promise<SyncResult> {
    await commit()
    await writing
    progress.phase('deleting')
    await dropGone()
    for (const target of writeTo()) await target.compact?.(steps)
    if (withPending && ctx.vectorizer && base.storesVectors()) {
      progress.phase('embedding')
      await vectors.fillPending(base, steps)
      result.vectorsPending = await base.pendingVectorCount()
    }
    result.durationMs = Math.round(performance.now() - started)
    return result
  }

  /** `visit` that counts the file as done. */
  async function visitCounted(
    file: ScannedFile,
    prev: FileRecord | undefined,
    force: boolean,
    begun?: Promise<BegunRead>,
  ): Promise<void> {
    await visit(file, prev, force, begun)
    progress.fileDone()
  }

  /** Waits for a write still in flight when the pass failed before its finish. */
  const settle = () => writing.catch(() => undefined)

  /**
   * Files a full pass begins ahead of the one it visits (at least one when `files` > 0, else
   * up to `bytes` of them in all). None for a store that overlaps writes: it reads the next
   * file while writing. One whose read waits on the disk while the one before it is prepared
   * and written (that wait was about 15 % of a first sync). When files are prepared
   * elsewhere, several: their preparations then wait in the workers' queues, not the main
   * thread for each of them (a worker may be held by a checkpoint's disk sync meanwhile);
   * a first sync of 10,001 chunks in 200 files took about 5 % less with 5 ahead than with 2.
   */
  const lookahead = base.overlapsWrites
    ? { files: 0, bytes: 0 }
    : elsewhere
      ? { files: LOOKAHEAD_FILES, bytes: LOOKAHEAD_BYTES }
      : { files: 1, bytes: 0 }

  return { result, gone, begin, visit: visitCounted, dropGone, finish, settle, unreadable, progress, lookahead }
}
