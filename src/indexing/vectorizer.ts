/**
 * Embeds chunk texts for indexing: cache first (for providers worth caching), then the
 * misses in batches bounded by count and by estimated tokens, with bounded concurrency.
 * Identical texts are embedded once: within a call, and across calls in flight at the same
 * time (one vectorizer serves every agent, so two agents indexing the same note pay for
 * one embedding). A provider error stops further batches; what was embedded is returned
 * with the error, so the sync can store the rest as "pending".
 */
import { asProviderError, ProviderError } from '../providers/provider-error.js'
import type { EmbeddingProvider } from '../providers/types.js'
import { forEachWithConcurrency, yieldToEventLoop } from '../shared/async.js'
import type { EmbeddingCache } from '../store/port.js'
import { estimateTokens } from '../text/token-estimate.js'

export type VectorizeItem = { hash: string; input: string }

export type VectorizeResult = {
  /** One entry per item; undefined where no vector could be had. */
  vectors: (Float32Array | undefined)[]
  /** Texts sent to the provider. */
  embedded: number
  cacheHits: number
  tokens: number
  error?: unknown
}

export type VectorizerDeps = {
  provider: Pick<EmbeddingProvider, 'id' | 'model' | 'dims' | 'maxBatch' | 'cacheable' | 'embedBatch'>
  cache: Pick<EmbeddingCache, 'get' | 'put'> | null
  batchSize: number
  batchTokens: number
  concurrency: number
}

/** Groups texts into batches of at most `size` items and `tokens` estimated tokens. */
export function planBatches(texts: readonly { input: string }[], size: number, tokens: number): number[][] {
  const batches: number[][] = []
  let current: number[] = []
  let currentTokens = 0
  texts.forEach((t, i) => {
    const cost = estimateTokens(t.input)
    if (current.length > 0 && (current.length >= size || currentTokens + cost > tokens)) {
      batches.push(current)
      current = []
      currentTokens = 0
    }
    current.push(i)
    currentTokens += cost
  })
  if (current.length > 0) batches.push(current)
  return batches
}

/** Refuses a provider answer with a wrong count, dimension or non-finite value. */
function checkVectors(vectors: Float32Array[], count: number, provider: Pick<EmbeddingProvider, 'id' | 'dims'>): void {
  if (vectors.length !== count)
    throw new ProviderError('failed', provider.id, `expected ${count} vectors, got ${vectors.length}`)
  for (const v of vectors) {
    const problem =
      v.length === provider.dims ? vectorProblemAllowZero(v) : `expected ${provider.dims} dimensions, got ${v.length}`
    if (problem) throw new ProviderError('failed', provider.id, problem)
  }
}

function vectorProblemAllowZero(v: Float32Array): string | null {
  for (let i = 0; i < v.length; i++) if (!Number.isFinite(v[i])) return `non-finite value at index ${i}`
  return null
}

/**
 * The model column of the embedding cache: the model with everything else that changes its
 * vectors. Vectors cached under other dimensions (MNEMO_EMBED_DIMENSIONS changed) would
 * fail every rebuild; under another key they are simply not found.
 */
export function cacheModelKey(provider: Pick<EmbeddingProvider, 'model' | 'dims' | 'variant'>): string {
  return [provider.model, provider.dims, ...(provider.variant === undefined ? [] : [provider.variant])].join('|')
}

export function createVectorizer(deps: VectorizerDeps) {
  const { provider } = deps
  const cache = provider.cacheable ? deps.cache : null
  const cacheModel = cacheModelKey(provider)
  /** Texts another call is embedding now: their vector, or undefined if that call fails. */
  const inFlight = new Map<string, Promise<Float32Array | undefined>>()

  async function vectorize(items: readonly VectorizeItem[], signal?: AbortSignal): Promise<VectorizeResult> {
    const byHash = new Map<string, Float32Array>()
    const cached = cache
      ? await cache.get(provider.id, cacheModel, [...new Set(items.map((i) => i.hash))])
      : new Map<string, Float32Array>()
    for (const [hash, vector] of cached) byHash.set(hash, vector)
    const uncached = [...new Map(items.filter((i) => !byHash.has(i.hash)).map((i) => [i.hash, i])).values()]
    // Taken now: the other call forgets its promises when it is done.
    const elsewhere = uncached.flatMap((i) => {
      const promise = inFlight.get(i.hash)
      return promise ? [{ hash: i.hash, promise }] : []
    })
    const missing = uncached.filter((i) => !inFlight.has(i.hash))
    const mine = new Map<string, PromiseWithResolvers<Float32Array | undefined>>()
    for (const item of missing) {
      const d = Promise.withResolvers<Float32Array | undefined>()
      mine.set(item.hash, d)
      inFlight.set(item.hash, d.promise)
    }
    const result: VectorizeResult = {
      vectors: [],
      embedded: 0,
      cacheHits: items.filter((i) => cached.has(i.hash)).length,
      tokens: 0,
    }

    const batches = planBatches(missing, Math.min(deps.batchSize, provider.maxBatch), deps.batchTokens)
    try {
      await embedBatches(batches, missing, byHash, result, signal)
    } finally {
      // Whatever this call did not embed (an error, a cancel) is settled as missing, so a
      // call waiting for it goes on and leaves those chunks pending.
      for (const [hash, d] of mine) {
        inFlight.delete(hash)
        d.resolve(byHash.get(hash))
      }
    }
    for (const { hash, promise } of elsewhere) {
      const vector = await promise
      if (!vector) continue
      byHash.set(hash, vector)
      result.cacheHits += items.filter((i) => i.hash === hash).length
    }
    result.vectors = items.map((i) => byHash.get(i.hash))
    return result
  }

  async function embedBatches(
    batches: number[][],
    missing: VectorizeItem[],
    byHash: Map<string, Float32Array>,
    result: VectorizeResult,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    await forEachWithConcurrency(
      batches,
      deps.concurrency,
      async (batch) => {
        const texts = batch.map((i) => (missing[i] as VectorizeItem).input)
        try {
          const out = await provider.embedBatch(texts, signal)
          checkVectors(out.vectors, texts.length, provider)
          result.embedded += texts.length
          result.tokens += out.tokens
          const fresh = batch.map((i, k) => ({
            hash: (missing[i] as VectorizeItem).hash,
            vector: out.vectors[k] as Float32Array,
          }))
          for (const f of fresh) byHash.set(f.hash, f.vector)
          await cache?.put(provider.id, cacheModel, fresh)
        } catch (err) {
          result.error ??= asProviderError(err, provider.id)
        }
        // An offline provider computes synchronously: let requests in between batches.
        await yieldToEventLoop()
      },
      () => result.error !== undefined || signal?.aborted === true,
    )
  }

  return { vectorize }
}

export type Vectorizer = ReturnType<typeof createVectorizer>
