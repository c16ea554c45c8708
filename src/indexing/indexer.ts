/**
 * One sync pass: scan the workspace, re-index files whose SHA-256 changed, drop files that
 * are gone. Reading is async; chunking and term analysis run in time slices; each batch of
 * files is written in one transaction (a reader sees a file's old chunks or its new ones,
 * never a mix) and the event loop gets a turn between batches.
 */
import fs from 'node:fs/promises'
import type { Config } from '../config/config.js'
import type { MemoryPaths } from '../files/memory-paths.js'
import { createSlicer, yieldToEventLoop } from '../shared/async.js'
import type { Logger } from '../shared/logger.js'
import { publicErrorMessage } from '../shared/public-error.js'
import type { FileRecord, PendingChunk } from '../store/chunks-repo.js'
import type { IndexStore } from '../store/index-store.js'
import { scanWorkspace, type ScannedFile } from './file-scanner.js'
import { prepareFile, type PreparedFile } from './prepare-file.js'
import { decodeText } from '../text/lines.js'
import { embedInput } from './embed-input.js'
import { sha256 } from './hashing.js'
import { indexIdentity } from './index-identity.js'
import type { Vectorizer } from './vectorizer.js'

/** Chunks written per transaction before the event loop gets a turn. */
const BATCH_CHUNKS = 500
/** Files deleted per transaction (a file's chunks go with it). */
const DELETE_BATCH_FILES = 100
/** Chunks embedded per step of the pass over chunks still waiting for a vector. */
const PENDING_BATCH = 256
/** Longest stretch of CPU work (chunking, analysis) between yields, in ms. */
const SLICE_MS = 8
/**
 * A file whose mtime is this close to the moment it was indexed is re-hashed on the next
 * sync even when size and mtime match: a write within the filesystem's timestamp
 * granularity could otherwise go unnoticed (git's "racy clean" rule). In ms.
 */
const RACY_WINDOW_MS = 2000

export type SyncOptions = { full: boolean; reason: string }

export type SyncResult = {
  full: boolean
  reason: string
  scanned: number
  indexed: number
  unchanged: number
  deleted: number
  skipped: number
  chunks: number
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
    errors: [],
    embedded: 0,
    embedCacheHits: 0,
    embeddingTokens: 0,
    vectorsPending: 0,
    durationMs: 0,
  }
}

export type IndexerDeps = {
  store: Pick<IndexStore, 'transaction' | 'listFiles' | 'getMeta' | 'pendingVectors' | 'pendingVectorCount'>
  /** Null when no embedding provider is configured. */
  vectorizer: Pick<Vectorizer, 'vectorize'> | null
  /** Provider, model and dims the vectors come from (part of the index identity). */
  embedding: { provider: string; model: string; dims: number; backend: string } | null
  rootReal: string
  memoryPaths: MemoryPaths
  chunking: Config['chunking']
  maxFileBytes: number
  log: Logger
  now?: () => number
}

export function createIndexer(deps: IndexerDeps) {
  const { store, log } = deps
  const now = deps.now ?? Date.now
  const identity = indexIdentity(deps.chunking, deps.embedding)

  const unchangedByStat = (prev: FileRecord, file: ScannedFile) =>
    prev.sizeBytes === file.sizeBytes &&
    prev.mtimeMs === file.mtimeMs &&
    prev.mtimeMs < prev.indexedAtMs - RACY_WINDOW_MS

  async function sync(opts: SyncOptions): Promise<SyncResult> {
    const started = performance.now()
    const full = opts.full || store.getMeta('identity') !== identity
    const result = emptySyncResult(full, opts.reason)
    const scanned = await scanWorkspace(deps.rootReal, deps.memoryPaths)
    result.scanned = scanned.length
    const known = new Map(store.listFiles().map((f) => [f.path, f]))
    const slicer = createSlicer(SLICE_MS)
    let writes: PreparedFile[] = []
    let touches: FileRecord[] = []
    let batchChunks = 0
    const gone: string[] = []

    let embedStopped = false
    /** Attaches vectors to the chunks of `files`; after a failure, chunks stay pending. */
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

    const commit = async () => {
      if (writes.length === 0 && touches.length === 0) return
      const w = writes
      const t = touches
      await embed(
        w.flatMap((f) =>
          f.chunks.map((c) => ({
            hash: c.contentHash,
            input: embedInput(c.headings, c.text),
            set: (v: Float32Array) => (c.vector = v),
          })),
        ),
      )
      store.transaction((repo) => {
        for (const f of w) repo.replaceFile(f.record, f.chunks)
        for (const f of t) repo.touchFile(f)
      })
      writes = []
      touches = []
      batchChunks = 0
    }

    for (const file of scanned) {
      const prev = known.get(file.rel)
      known.delete(file.rel)
      if (file.sizeBytes > deps.maxFileBytes) {
        result.skipped++
        log.warn(
          { path: file.rel, sizeBytes: file.sizeBytes, maxFileBytes: deps.maxFileBytes },
          'file too large, not indexed',
        )
        if (prev) gone.push(prev.path)
        continue
      }
      if (!full && prev && unchangedByStat(prev, file)) {
        result.unchanged++
        continue
      }
      let bytes: Buffer
      try {
        bytes = await fs.readFile(file.abs)
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
          if (prev) gone.push(prev.path)
          continue
        }
        result.errors.push({ path: file.rel, error: publicErrorMessage(err) })
        log.warn({ err, path: file.rel }, 'cannot read file')
        continue
      }
      const hash = sha256(bytes)
      const indexedAtMs = now()
      if (!full && prev && prev.sha256 === hash) {
        touches.push({ ...prev, sizeBytes: bytes.length, mtimeMs: file.mtimeMs, indexedAtMs })
        result.unchanged++
        continue
      }
      const prepared = await prepareFile(
        {
          rel: file.rel,
          text: decodeText(bytes),
          sha256: hash,
          sizeBytes: bytes.length,
          mtimeMs: file.mtimeMs,
          indexedAtMs,
        },
        deps.chunking,
        slicer,
      )
      writes.push(prepared)
      result.indexed++
      result.chunks += prepared.chunks.length
      batchChunks += prepared.chunks.length
      if (batchChunks >= BATCH_CHUNKS) {
        await commit()
        await yieldToEventLoop()
      }
      await slicer.maybeYield()
    }
    await commit()

    gone.push(...known.keys())
    for (let i = 0; i < gone.length; i += DELETE_BATCH_FILES) {
      const slice = gone.slice(i, i + DELETE_BATCH_FILES)
      store.transaction((repo) => slice.forEach((p) => repo.deleteFile(p)))
      await yieldToEventLoop()
    }
    result.deleted = gone.length
    store.transaction((repo) => repo.setMeta('identity', identity))
    await embedPending()
    result.vectorsPending = deps.vectorizer ? store.pendingVectorCount() : 0
    result.durationMs = Math.round(performance.now() - started)
    return result

    /** Gives vectors to chunks written without one (an earlier outage, a new provider). */
    async function embedPending(): Promise<void> {
      while (deps.vectorizer && !embedStopped) {
        const pending = store.pendingVectors(PENDING_BATCH)
        if (pending.length === 0) return
        const vectors: { chunk: PendingChunk; vector: Float32Array }[] = []
        const stored = await embed(
          pending.map((chunk) => ({
            hash: chunk.contentHash,
            input: embedInput(chunk.headings, chunk.text),
            set: (vector: Float32Array) => vectors.push({ chunk, vector }),
          })),
        )
        store.transaction((repo) => {
          for (const { chunk, vector } of vectors) repo.putVector(chunk.id, chunk.path, chunk.source, vector)
        })
        if (stored === 0) return
        await yieldToEventLoop()
      }
    }
  }

  return { sync }
}

export type Indexer = ReturnType<typeof createIndexer>
