/**
 * The vectors of one sync pass (sync-pass.ts): those of each batch it writes, and those of
 * chunks written earlier without one (an outage, a new provider). After a provider failure
 * the pass asks for no more: its chunks stay searchable by keyword and pending until a
 * later sync.
 */
import type { Logger } from '../shared/logger.js'
import { publicErrorMessage } from '../shared/public-error.js'
import type { SpaceWriter, StepOptions, VectorPut } from '../store/port.js'
import { embedInput } from './embed-input.js'
import type { PreparedFile } from './prepare-file.js'
import type { Progress } from './sync-progress.js'
import type { SyncResult } from './sync-result.js'
import type { Vectorizer } from './vectorizer.js'

/** Chunks embedded per step of the pass over chunks still waiting for a vector. */
const PENDING_BATCH = 256
/** Vectors stored per transaction (a vec0 insert each: about 3 ms for 64). */
const VECTORS_PER_TRANSACTION = 64

type Item = { hash: string; input: string; set: (v: Float32Array) => void }

export function createPassVectors(deps: {
  /** The vectorizer now (null while no embedding provider is bound), asked at each use. */
  vectorizer: () => Pick<Vectorizer, 'vectorize'> | null
  result: SyncResult
  progress: Pick<Progress, 'toEmbed' | 'embedded'>
  log: Logger
  /** The pass's: a shutdown cuts an embedding call short instead of waiting for its timeout. */
  signal?: AbortSignal | undefined
}) {
  const { result, progress } = deps
  let stopped = false

  /** Attaches vectors to items; returns how many got one. */
  async function embed(items: Item[]): Promise<number> {
    const vectorizer = deps.vectorizer()
    if (!vectorizer || stopped || items.length === 0) return 0
    progress.toEmbed(items.length)
    const out = await vectorizer.vectorize(items, deps.signal)
    // Cut off by the pass's end (a shutdown): not a provider failure to record.
    deps.signal?.throwIfAborted()
    result.embedded += out.embedded
    result.embedCacheHits += out.cacheHits
    result.embeddingTokens += out.tokens
    let stored = 0
    out.vectors.forEach((v, i) => {
      if (!v) return
      items[i]?.set(v)
      stored++
    })
    progress.embedded(stored)
    if (out.error !== undefined) {
      stopped = true
      result.embedError = publicErrorMessage(out.error)
      deps.log.warn(
        { err: out.error },
        'embedding failed; chunks stay searchable by keyword and get vectors at a later sync',
      )
    }
    return stored
  }

  return {
    /**
     * Gives the chunks of `files` vectors. They go on copies of the chunks: prepared chunks
     * are kept for the file's next append (prepare-file.ts), which must not carry this pass's
     * vectors (a later pass may embed with another model).
     */
    async ofBatch(files: PreparedFile[]): Promise<void> {
      for (const f of files) f.chunks = f.chunks.map((c) => ({ ...c }))
      await embed(
        files.flatMap((f) =>
          f.chunks.map((c) => ({
            hash: c.contentHash,
            input: embedInput(c.headings, c.text),
            set: (v: Float32Array) => (c.vector = v),
          })),
        ),
      )
    },

    /** Gives vectors to chunks of `index` written without one, in steps. */
    async fillPending(index: Pick<SpaceWriter, 'pendingVectors' | 'putVectors'>, steps: StepOptions): Promise<void> {
      while (!stopped) {
        steps.signal?.throwIfAborted()
        const pending = await index.pendingVectors(PENDING_BATCH)
        if (pending.length === 0) return
        const vectors: VectorPut[] = []
        const stored = await embed(
          pending.map((chunk) => ({
            hash: chunk.contentHash,
            input: embedInput(chunk.headings, chunk.text),
            set: (vector: Float32Array) =>
              vectors.push({ id: chunk.id, path: chunk.path, source: chunk.source, vector }),
          })),
        )
        for (let i = 0; i < vectors.length; i += VECTORS_PER_TRANSACTION) {
          await index.putVectors(vectors.slice(i, i + VECTORS_PER_TRANSACTION))
          await steps.between()
        }
        if (stored === 0) return
      }
    },
  }
}
