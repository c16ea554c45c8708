/**
 * Sync passes: compare source files with an index and re-index what changed. A full-scan
 * sync lists every source, re-reads files whose size, mtime or SHA-256 changed and drops
 * files that are gone; a path sync (the write API) re-reads the named files only. Reading
 * is async; chunking and term analysis run in time slices; each batch of files is written
 * in one transaction per index (a reader sees a file's old chunks or its new ones, never a
 * mix) and the event loop gets a turn between batches.
 *
 * Changes go to every write target (the live index, and a rebuild's new index while one
 * runs), looked up at each commit. Every read takes a number from the read sequence, and
 * an index ignores a write older than what it holds, so concurrent passes can commit in any
 * order.
 */
import fs from 'node:fs/promises'
import type { Config } from '../config/config.js'
import { createSlicer, yieldToEventLoop } from '../shared/async.js'
import type { Foreground } from '../shared/foreground.js'
import type { Logger } from '../shared/logger.js'
import { publicErrorMessage } from '../shared/public-error.js'
import type { FileRecord, PendingChunk } from '../store/chunks-repo.js'
import type { IndexStore } from '../store/index-store.js'
import { decodeText } from '../text/lines.js'
import { embedInput } from './embed-input.js'
import { scanSources, statSource, type ScannedFile, type SourceRoots } from './file-scanner.js'
import { sha256 } from './hashing.js'
import { createTermCache, prepareFile, type PreparedFile } from './prepare-file.js'
import type { ReadSequence } from './read-sequence.js'
import { transcriptText } from './transcript.js'
import type { Vectorizer } from './vectorizer.js'

/**
 * Chunks written per transaction before the event loop gets a turn. A transaction is
 * synchronous: 50 chunks with their FTS rows hold the event loop for about 2.5 ms.
 */
const BATCH_CHUNKS = 25
/** Files deleted per transaction (a file's chunks go with it). */
const DELETE_BATCH_FILES = 100
/** Chunks embedded per step of the pass over chunks still waiting for a vector. */
const PENDING_BATCH = 256
/** Chunks whose analysed terms are remembered (a chunk's terms are a few hundred bytes). */
const TERM_CACHE_CHUNKS = 20_000
/**
 * Longest stretch of CPU work (chunking, analysis) between yields, in ms: short for
 * background passes, which then also wait for searches in progress (up to
 * BACKGROUND_PAUSE_MS), longer for a write's own pass, which its caller is waiting for.
 */
const BACKGROUND_SLICE_MS = 1
const FOREGROUND_SLICE_MS = 8
const BACKGROUND_PAUSE_MS = 25
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
}

export type SyncResult = {
  full: boolean
  reason: string
  scanned: number
  indexed: number
  unchanged: number
  deleted: number
  skipped: number
  chunks: number
  /** Transcript lines that were not JSON objects (skipped). */
  malformedLines: number
  errors: { path: string; error: string }[]
  /** Texts sent to the embedding provider, and vectors taken from the cache. */
  embedded: number
  embedCacheHits: number
  embeddingTokens: number
  /** Chunks still waiting for a vector after this sync. */
  vectorsPending: number
  /** Why embedding stopped (the chunks stay searchable by keyword meanwhile). */
  embedError?: string
  durationMs: number
}

/** A sync result with every count at zero. */
export function emptySyncResult(full: boolean, reason: string): SyncResult {
  return {
    full,
    reason,
    scanned: 0,
    indexed: 0,
    unchanged: 0,
    deleted: 0,
    skipped: 0,
    chunks: 0,
    malformedLines: 0,
    errors: [],
    embedded: 0,
    embedCacheHits: 0,
    embeddingTokens: 0,
    vectorsPending: 0,
    durationMs: 0,
  }
}

/** What a sync needs of an index. */
export type IndexTarget = Pick<
  IndexStore,
  'transaction' | 'mergeStep' | 'storesVectors' | 'listFiles' | 'getFile' | 'pendingVectors' | 'pendingVectorCount'
>

export type IndexerDeps = {
  /** The index searches read: what syncs compare files with unless told otherwise. */
  live: IndexTarget
  /** Every index a change is written to, looked up at each commit. */
  targets: () => readonly IndexTarget[]
  readSeq: ReadSequence
  /** Searches in progress, which background passes give way to. */
  foreground: Pick<Foreground, 'whenIdle'>
  /** Null when no embedding provider is configured. */
  vectorizer: Pick<Vectorizer, 'vectorize'> | null
  roots: SourceRoots
  chunking: Config['chunking']
  maxFileBytes: number
  log: Logger
  now?: () => number
}

/**
 * A file to drop from the index. `known`: the compared index had it (counted as deleted);
 * the others are still dropped, in case another write target has it.
 */
type Gone = { path: string; readSeq: number; known: boolean }

export function createIndexer(deps: IndexerDeps) {
  const { log } = deps
  const now = deps.now ?? Date.now
  const termCache = createTermCache(TERM_CACHE_CHUNKS)

  const unchangedByStat = (prev: FileRecord, file: ScannedFile) =>
    prev.sizeBytes === file.sizeBytes &&
    prev.mtimeMs === file.mtimeMs &&
    prev.mtimeMs < prev.indexedAtMs - RACY_WINDOW_MS

  /** One pass's state: the batch being built, its counters, and how it writes. */
  function startPass(opts: SyncOptions, base: IndexTarget, writeTo: () => readonly IndexTarget[], background: boolean) {
    const started = performance.now()
    const result = emptySyncResult(opts.full, opts.reason)
    const slicer = background
      ? createSlicer(BACKGROUND_SLICE_MS, () => deps.foreground.whenIdle(BACKGROUND_PAUSE_MS))
      : createSlicer(FOREGROUND_SLICE_MS)
    let writes: PreparedFile[] = []
    let touches: FileRecord[] = []
    let batchChunks = 0
    let embedStopped = false

    /** Attaches vectors to items; after a provider failure, chunks stay pending. */
    const embed = async (items: { hash: string; input: string; set: (v: Float32Array) => void }[]) => {
      if (!deps.vectorizer || embedStopped || items.length === 0) return 0
      const out = await deps.vectorizer.vectorize(items)
      result.embedded += out.embedded
      result.embedCacheHits += out.cacheHits
      result.embeddingTokens += out.tokens
      let stored = 0
      out.vectors.forEach((v, i) => {
        if (!v) return
        items[i]?.set(v)
        stored++
      })
      if (out.error !== undefined) {
        embedStopped = true
        result.embedError = publicErrorMessage(out.error)
        log.warn(
          { err: out.error },
          'embedding failed; chunks stay searchable by keyword and get vectors at a later sync',
        )
      }
      return stored
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
      if (writeTo().some((target) => target.storesVectors())) {
        await embed(
          w.flatMap((f) =>
            f.chunks.map((c) => ({
              hash: c.contentHash,
              input: embedInput(c.headings, c.text),
              set: (v: Float32Array) => (c.vector = v),
            })),
          ),
        )
      }
      for (const target of writeTo()) {
        target.transaction((repo) => {
          for (const f of w) repo.replaceFile(f.record, f.chunks)
          for (const f of t) repo.touchFile(f)
        })
      }
      // A rebuild's index merges its FTS5 segments in small steps, one per commit.
      if (writeTo().length > 0 && background) {
        await yieldToEventLoop()
        for (const target of writeTo()) target.mergeStep()
      }
    }

    const gone: Gone[] = []

    /** Reads `file` and queues it for writing unless it is unchanged. */
    async function visit(file: ScannedFile, prev: FileRecord | undefined, force: boolean): Promise<void> {
      opts.signal?.throwIfAborted()
      const readSeq = deps.readSeq.next()
      if (file.sizeBytes > deps.maxFileBytes) {
        result.skipped++
        log.warn(
          { path: file.rel, sizeBytes: file.sizeBytes, maxFileBytes: deps.maxFileBytes },
          'file too large, not indexed',
        )
        gone.push({ path: file.rel, readSeq, known: prev !== undefined })
        return
      }
      if (!opts.full && !force && prev && unchangedByStat(prev, file)) {
        result.unchanged++
        return
      }
      let bytes: Buffer
      try {
        bytes = await fs.readFile(file.abs)
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
          gone.push({ path: file.rel, readSeq, known: prev !== undefined })
          return
        }
        result.errors.push({ path: file.rel, error: publicErrorMessage(err) })
        log.warn({ err, path: file.rel }, 'cannot read file')
        return
      }
      const hash = sha256(bytes)
      const indexedAtMs = now()
      if (!opts.full && prev && prev.sha256 === hash) {
        touches.push({ ...prev, sizeBytes: bytes.length, mtimeMs: file.mtimeMs, indexedAtMs, readSeq })
        result.unchanged++
        return
      }
      let text = decodeText(bytes)
      if (file.source === 'sessions') {
        const transcript = transcriptText(text)
        text = transcript.text
        if (transcript.malformed > 0) {
          result.malformedLines += transcript.malformed
          log.warn(
            { path: file.rel, malformedLines: transcript.malformed },
            'transcript lines that are not JSON skipped',
          )
        }
      }
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
        deps.chunking,
        slicer,
        termCache,
      )
      writes.push(prepared)
      result.indexed++
      result.chunks += prepared.chunks.length
      batchChunks += prepared.chunks.length
      if (batchChunks >= BATCH_CHUNKS) await commit()
      await slicer.maybeYield()
    }

    /** Writes what is queued, drops the files that are gone, fills pending vectors. */
    async function finish(withPending: boolean): Promise<SyncResult> {
      await commit()
      for (let i = 0; i < gone.length; i += DELETE_BATCH_FILES) {
        opts.signal?.throwIfAborted()
        const slice = gone.slice(i, i + DELETE_BATCH_FILES)
        for (const target of writeTo()) {
          target.transaction((repo) => slice.forEach((g) => repo.deleteFile(g.path, g.readSeq)))
        }
        await yieldToEventLoop()
      }
      result.deleted = gone.filter((g) => g.known).length
      if (withPending && deps.vectorizer && base.storesVectors()) {
        await embedPending()
        result.vectorsPending = base.pendingVectorCount()
      }
      result.durationMs = Math.round(performance.now() - started)
      return result
    }

    /** Gives vectors to chunks of `base` written without one (an outage, a new provider). */
    async function embedPending(): Promise<void> {
      while (!embedStopped) {
        opts.signal?.throwIfAborted()
        const pending = base.pendingVectors(PENDING_BATCH)
        if (pending.length === 0) return
        const vectors: { chunk: PendingChunk; vector: Float32Array }[] = []
        const stored = await embed(
          pending.map((chunk) => ({
            hash: chunk.contentHash,
            input: embedInput(chunk.headings, chunk.text),
            set: (vector: Float32Array) => vectors.push({ chunk, vector }),
          })),
        )
        base.transaction((repo) => {
          for (const { chunk, vector } of vectors) repo.putVector(chunk.id, chunk.path, chunk.source, vector)
        })
        if (stored === 0) return
        await yieldToEventLoop()
      }
    }

    return { result, gone, visit, finish }
  }

  /** Scans every source and syncs the index with it. */
  async function sync(opts: SyncOptions): Promise<SyncResult> {
    const base = opts.into ?? deps.live
    const into = opts.into
    const pass = startPass(opts, base, into ? () => [into] : deps.targets, true)
    // Files missing from the scan are gone as of this moment: a file created and indexed
    // after it carries a newer read and is not deleted.
    const scanSeq = deps.readSeq.next()
    const scanned = await scanSources(deps.roots)
    pass.result.scanned = scanned.length
    const known = new Map(base.listFiles().map((f) => [f.path, f]))
    for (const file of scanned) {
      const prev = known.get(file.rel)
      known.delete(file.rel)
      await pass.visit(file, prev, false)
    }
    for (const path of known.keys()) pass.gone.push({ path, readSeq: scanSeq, known: true })
    return pass.finish(true)
  }

  /** Re-reads the given sources (whatever their stat says) into every write target. */
  async function syncPaths(paths: readonly string[], reason: string): Promise<SyncResult> {
    const pass = startPass({ full: false, reason }, deps.live, deps.targets, false)
    for (const rel of new Set(paths)) {
      const readSeq = deps.readSeq.next()
      const file = await statSource(deps.roots, rel)
      const prev = deps.live.getFile(rel)
      pass.result.scanned++
      if (file) await pass.visit(file, prev, true)
      else pass.gone.push({ path: rel, readSeq, known: prev !== undefined })
    }
    return pass.finish(false)
  }

  return { sync, syncPaths }
}

export type Indexer = ReturnType<typeof createIndexer>
