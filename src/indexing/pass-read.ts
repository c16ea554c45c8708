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
import { prepareFile, type PrepareCache, type PreparedFile, type PrepareOffThread } from './prepare-file.js'
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
 * unhandled rejection). When files are prepared elsewhere, also the rows it comes to,
 * prepared on another thread while the files before it are written.
 */
export type BegunRead = {
  readSeq: number
  read: Promise<{ ok: true; value: ReadResult } | { ok: false; error: unknown }> | null
  rows?: Promise<{ ok: true; value: PreparedFile | null } | { ok: false; error: unknown }>
}

const relativePosix = (root: string, abs: string) => path.relative(root, abs).split(path.sep).join('/')

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
  /** Where big files are prepared, if not here. */
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

  /** Takes `file`'s read number and starts reading it unless its stat shows it need not be. */
  async function begin(file: ScannedFile, prev: FileRecord | undefined, force: boolean): Promise<BegunRead> {
    const readSeq = await ctx.readSeq.next()
    // Opened from its folder's root without following symlinks, like the file API does.
    const read =
      statSays(file, prev, force) === null
        ? settled(readWorkspaceFile(file.root, relativePosix(file.root, file.abs), ctx.maxFileBytes))
        : null
    const begun: BegunRead = { readSeq, read }
    if (deps.elsewhere) begun.rows = settled(rowsOf(file, prev, force, begun))
    return begun
  }

  /** The bytes `begun` read, or null when there are none to index (gone, invalid, too big, unreadable: counted). */
  async function bytesOf(
    file: ScannedFile,
    prev: FileRecord | undefined,
    readSeq: number,
    reading: NonNullable<BegunRead['read']>,
  ): Promise<Buffer | null> {
    const dropped = () => deps.gone.push({ path: file.rel, readSeq, known: prev !== undefined })
    try {
      const outcome = await reading
      if (!outcome.ok) throw outcome.error
      const read = outcome.value
      // A write's own pass waits only once it has used a whole slice (a flush never does).
      if (deps.background) await deps.slicer.pause()
      else deps.slicer.restart()
      if (read.kind === 'not-found' || read.kind === 'invalid' || read.kind === 'too-large') {
        if (read.kind === 'invalid') log.warn({ path: file.rel, reason: read.reason }, 'file not indexed')
        if (read.kind === 'too-large') result.skipped++
        dropped()
        return null
      }
      ctx.reclaimer?.worked(read.bytes.length)
      return read.bytes
    } catch (err) {
      if (isUnreadable(err)) unreadable(file.rel, err)
      else {
        result.errors.push({ path: file.rel, error: publicErrorMessage(err) })
        log.warn({ err, path: file.rel }, 'cannot read file')
      }
      return null
    }
  }

  /** A file's text to chunk: a session transcript's messages, or the file as it is. */
  function textOf(file: ScannedFile, bytes: Buffer): string {
    const text = decodeText(bytes)
    if (file.source !== 'sessions') return text
    const transcript = transcriptText(text)
    if (transcript.malformed > 0) {
      result.malformedLines += transcript.malformed
      log.warn({ path: file.rel, malformedLines: transcript.malformed }, 'transcript lines that are not JSON skipped')
    }
    return transcript.text
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
    const bytes = await bytesOf(file, prev, readSeq, reading)
    if (bytes === null) return null
    const hash = sha256(bytes)
    const indexedAtMs = ctx.now()
    if (!deps.full && prev && prev.sha256 === hash) {
      deps.touch({ ...prev, sizeBytes: bytes.length, mtimeMs: file.mtimeMs, indexedAtMs, readSeq })
      result.unchanged++
      return null
    }
    const text = textOf(file, bytes)
    // A pass cancelled meanwhile (shutdown) prepares no file begun ahead: that would keep
    // the workers busy, or this thread once they are closed, for rows never written.
    deps.signal?.throwIfAborted()
    const input = { rel: file.rel, text, sha256: hash, sizeBytes: bytes.length, mtimeMs: file.mtimeMs }
    const prepared = await prepareFile(
      { ...input, indexedAtMs, readSeq, source: file.source },
      ctx.chunking,
      deps.slicer,
      { prepare: ctx.prepareCache, key: file.abs },
      deps.elsewhere,
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

  return { begin, rowsOf, unreadable }
}
