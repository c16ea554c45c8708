/**
 * How a sync pass (sync-pass.ts) reads each file and comes to its rows: a read number first,
 * then its bytes unless its stat shows it unchanged or too big, its hash against the index's
 * (an unchanged file only has its record refreshed), its text (a session transcript's
 * messages), and its chunks (prepare-file.ts, here or elsewhere). What it cannot read is
 * counted and logged, and the pass goes on.
 */
import path from 'node:path'
import type { Config } from '../config/config.js'
import type { FileRecord } from '../domain/chunks.js'
import { sha256 } from '../domain/hashing.js'
import { readWorkspaceFile, type ReadResult } from '../files/workspace-fs.js'
import type { createSlicer } from '../shared/async.js'
import type { Logger } from '../shared/logger.js'
import type { MemoryReclaimer } from '../shared/memory-reclaimer.js'
import type { ReadSequence } from '../store/port.js'
import { publicErrorMessage } from '../shared/public-error.js'
import { decodeText } from '../text/lines.js'
import { isUnreadable, type ScannedFile } from './file-scanner.js'
import { keepPrepared, prepareFile, type PrepareCache, type PreparedFile } from './prepare-file.js'
import { readAndPrepare, type PrepareOffThread, type ReadThere, type ReadThereInput } from './read-there.js'
import type { SyncResult } from './sync-result.js'
import { transcriptText } from './transcript.js'

/**
 * A file whose mtime is this close to the moment it was indexed is re-hashed on the next
 * sync even when size and mtime match: a write within the filesystem's timestamp
 * granularity could otherwise go unnoticed (git's "racy clean" rule). In ms.
 */
const RACY_WINDOW_MS = 2000

/**
 * A file to drop from the index. `known`: the compared index had it (counted as deleted);
 * the others are still dropped, in case another write target has it.
 */
export type Gone = { path: string; readSeq: number; known: boolean }

/**
 * A file's visit begun ahead of its turn: its read number, taken first as always, and the
 * read of its bytes when the visit will need them (settled, so an abandoned one is never an
 * unhandled rejection): here, or on another thread that also prepares its rows
 * (read-there.ts). When files are prepared elsewhere, also the rows it comes to, made while
 * the files before it are written.
 */
export type BegunRead = {
  readSeq: number
  read: Promise<{ ok: true; value: ReadResult | ReadThere } | { ok: false; error: unknown }> | null
  rows?: Promise<{ ok: true; value: PreparedFile | null } | { ok: false; error: unknown }>
}

const relativePosix = (root: string, abs: string) => path.relative(root, abs).split(path.sep).join('/')

/**
 * What a thread is asked to read and prepare of `file` (`unchangedIf`: the index's hash of
 * it, if compared). Timed now, before the read, not after: a write meanwhile is then within
 * its racy window.
 */
const readThereInput = (
  file: ScannedFile,
  ctx: Pick<PassReadDeps['ctx'], 'maxFileBytes' | 'chunking' | 'now'>,
  readSeq: number,
  unchangedIf: string | null,
): ReadThereInput => ({
  root: file.root,
  path: relativePosix(file.root, file.abs),
  maxBytes: ctx.maxFileBytes,
  unchangedIf,
  file: { rel: file.rel, mtimeMs: file.mtimeMs, indexedAtMs: ctx.now(), readSeq, source: file.source },
  chunking: ctx.chunking,
})

/** A file's text to chunk: a session transcript's messages (and its lines that are not JSON), or the file as it is. */
function textOf(file: ScannedFile, text: string): { text: string; malformed: number } {
  return file.source === 'sessions' ? transcriptText(text) : { text, malformed: 0 }
}

/** A metadata comment a file holds that cannot be read is indexed as text; whoever wrote it should hear. */
function withWarnings(log: Logger, prepared: PreparedFile): PreparedFile {
  if (prepared.malformed.length > 0) {
    log.warn(
      { path: prepared.record.path, malformedMetadata: prepared.malformed.slice(0, 5) },
      'entry metadata comments that cannot be read are indexed as text',
    )
  }
  return prepared
}

const unchangedByStat = (prev: FileRecord, file: ScannedFile) =>
  prev.sizeBytes === file.sizeBytes && prev.mtimeMs === file.mtimeMs && prev.mtimeMs < prev.indexedAtMs - RACY_WINDOW_MS

/** Settles `p` into a value, so a read begun ahead and never awaited rejects nothing. */
const settled = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  )

export type PassReadDeps = {
  /** What the pass's indexer shares (sync-pass.ts PassContext). */
  ctx: {
    readSeq: ReadSequence
    maxFileBytes: number
    reclaimer?: Pick<MemoryReclaimer, 'worked'> | undefined
    now: () => number
    chunking: Config['chunking']
    prepareCache: PrepareCache
  }
  /** Re-read every file, even unchanged ones. */
  full: boolean
  /** A background pass pauses for searches once it used a slice; others only restart it. */
  background: boolean
  slicer: ReturnType<typeof createSlicer>
  /** Where files are read and prepared, if not here. */
  elsewhere: PrepareOffThread | undefined
  result: SyncResult
  /** Files found gone (or too big, or no longer readable), dropped at the pass's end. */
  gone: Gone[]
  /** Refreshes an unchanged file's record (its stat) in the batch. */
  touch: (record: FileRecord) => void
  log: Logger
  signal?: AbortSignal | undefined
}

export function createPassRead(deps: PassReadDeps) {
  const { ctx, result, log } = deps

  /** A file or folder the service may not read: counted, logged, listed; the pass goes on. */
  function unreadable(rel: string, err: unknown): void {
    result.unreadable++
    result.errors.push({ path: rel, error: publicErrorMessage(err) })
    log.warn({ path: rel, code: (err as NodeJS.ErrnoException).code }, 'no permission to read; skipped')
  }

  /** Whether `file`'s stat says it is not read: too big, or unchanged since it was indexed. */
  const statSays = (file: ScannedFile, prev: FileRecord | undefined, force: boolean) =>
    file.sizeBytes > ctx.maxFileBytes
      ? ('too-big' as const)
      : !deps.full && !force && prev !== undefined && unchangedByStat(prev, file)
        ? ('unchanged' as const)
        : null

  /**
   * Takes `file`'s read number and starts reading it unless its stat shows it need not be:
   * on another thread, which prepares its rows too, when files are prepared elsewhere and
   * this process has no checkpoint to resume it from (prepare-file.ts); else here.
   */
  async function begin(file: ScannedFile, prev: FileRecord | undefined, force: boolean): Promise<BegunRead> {
    const readSeq = await ctx.readSeq.next()
    const read = statSays(file, prev, force) === null ? settled(readFile(file, prev, readSeq)) : null
    const begun: BegunRead = { readSeq, read }
    if (deps.elsewhere) begun.rows = settled(rowsOf(file, prev, force, begun))
    return begun
  }

  /** Reads `file`: on another thread (which prepares it too) where begin() says, else here. */
  function readFile(file: ScannedFile, prev: FileRecord | undefined, readSeq: number): Promise<ReadResult | ReadThere> {
    const there =
      deps.elsewhere && !ctx.prepareCache.files.has(file.abs) && !deps.signal?.aborted ? deps.elsewhere : undefined
    // Opened from its folder's root without following symlinks, like the file API does.
    if (!there) return readWorkspaceFile(file.root, relativePosix(file.root, file.abs), ctx.maxFileBytes)
    const input = readThereInput(file, ctx, readSeq, deps.full ? null : (prev?.sha256 ?? null))
    return there(input, () => readAndPrepare(input, deps.slicer))
  }

  /**
   * What `begun` read, or null when there is nothing to index (gone, invalid, too big,
   * unreadable: counted).
   */
  async function readOf(
    file: ScannedFile,
    prev: FileRecord | undefined,
    readSeq: number,
    reading: NonNullable<BegunRead['read']>,
  ): Promise<Exclude<ReadResult | ReadThere, { kind: 'not-found' | 'invalid' | 'too-large' | 'failed' }> | null> {
    const dropped = () => deps.gone.push({ path: file.rel, readSeq, known: prev !== undefined })
    try {
      const outcome = await reading
      if (!outcome.ok) throw outcome.error
      const read = outcome.value
      // A write's own pass waits only once it has used a whole slice (a flush never does).
      if (deps.background) await deps.slicer.pause()
      else deps.slicer.restart()
      if (read.kind === 'failed') throw Object.assign(new Error(read.message), read.code ? { code: read.code } : {})
      if (read.kind === 'not-found' || read.kind === 'invalid' || read.kind === 'too-large') {
        if (read.kind === 'invalid') log.warn({ path: file.rel, reason: read.reason }, 'file not indexed')
        if (read.kind === 'too-large') result.skipped++
        dropped()
        return null
      }
      ctx.reclaimer?.worked(read.kind === 'ok' ? read.bytes.length : read.sizeBytes)
      return read
    } catch (err) {
      if (isUnreadable(err)) unreadable(file.rel, err)
      else {
        result.errors.push({ path: file.rel, error: publicErrorMessage(err) })
        log.warn({ err, path: file.rel }, 'cannot read file')
      }
      return null
    }
  }

  /** Counts and logs a transcript's lines that are not JSON. */
  function malformedLines(file: ScannedFile, malformed: number): void {
    if (malformed === 0) return
    result.malformedLines += malformed
    log.warn({ path: file.rel, malformedLines: malformed }, 'transcript lines that are not JSON skipped')
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
    const stat = statSays(file, prev, force)
    if (stat === 'too-big') {
      result.skipped++
      log.warn(
        { path: file.rel, sizeBytes: file.sizeBytes, maxFileBytes: ctx.maxFileBytes },
        'file too large, not indexed',
      )
      deps.gone.push({ path: file.rel, readSeq, known: prev !== undefined })
      return null
    }
    if (stat === 'unchanged') {
      result.unchanged++
      return null
    }
    // begin() skips reading exactly the files the two checks above returned for.
    if (reading === null) return null
    const read = await readOf(file, prev, readSeq, reading)
    if (read === null) return null
    const hash = read.kind === 'ok' ? sha256(read.bytes) : read.sha256
    const sizeBytes = read.kind === 'ok' ? read.bytes.length : read.sizeBytes
    const indexedAtMs = read.kind === 'prepared' ? read.prepared.file.record.indexedAtMs : ctx.now()
    if (!deps.full && prev && prev.sha256 === hash) {
      deps.touch({ ...prev, sizeBytes, mtimeMs: file.mtimeMs, indexedAtMs, readSeq })
      result.unchanged++
      return null
    }
    if (read.kind === 'unchanged') throw new Error(`${file.rel} was read as unchanged against no hash of it`)
    if (read.kind === 'prepared') {
      malformedLines(file, read.malformedLines)
      keepPrepared(ctx.prepareCache, file.abs, read.prepared)
      return withWarnings(log, read.prepared.file)
    }
    const { text, malformed } = textOf(file, read.kind === 'ok' ? decodeText(read.bytes) : read.text)
    malformedLines(file, malformed)
    // A pass cancelled meanwhile (shutdown) prepares no file begun ahead here.
    deps.signal?.throwIfAborted()
    const input = { rel: file.rel, text, sha256: hash, sizeBytes, mtimeMs: file.mtimeMs, indexedAtMs, readSeq }
    const cache = { prepare: ctx.prepareCache, key: file.abs }
    const prepared = await prepareFile({ ...input, source: file.source }, ctx.chunking, deps.slicer, cache)
    return withWarnings(log, prepared)
  }

  return { begin, rowsOf, unreadable }
}
