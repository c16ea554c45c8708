/**
 * Query embeddings for search: one provider call per distinct query, bounded by the query
 * time limit (MNEMO_EMBED_QUERY_TIMEOUT_MS), and remembered in a small LRU because agents
 * repeat the same searches turn after turn.
 */
import { asProviderError, ProviderError } from '../providers/provider-error.js'
import type { Embedding, EmbeddingProvider } from '../providers/types.js'
import { withTimeout } from '../shared/async.js'
import { createLru } from '../shared/lru.js'

/** Distinct query texts whose vectors are kept. */
const QUERY_CACHE_SIZE = 1000

export function createQueryEmbedder(deps: {
  provider: Pick<EmbeddingProvider, 'id' | 'dims' | 'embedQuery'>
  timeoutMs: number
}) {
  const cache = createLru<string, Float32Array>(QUERY_CACHE_SIZE)

  /** The query's vector; tokens is 0 when it came from the cache. */
  async function embed(query: string): Promise<Embedding> {
    const hit = cache.get(query)
    if (hit) return { vector: hit, tokens: 0 }
    const out = await withTimeout(
      deps.timeoutMs,
      (signal) => deps.provider.embedQuery(query, signal),
      () => new ProviderError('timeout', deps.provider.id, `query embedding took over ${deps.timeoutMs} ms`),
    ).catch((err: unknown) => {
      throw asProviderError(err, deps.provider.id)
    })
    const { vector } = out
    if (vector.length !== deps.provider.dims || vector.some((x) => !Number.isFinite(x))) {
      throw new ProviderError(
        'failed',
        deps.provider.id,
        `query vector has ${vector.length} dimensions or non-finite values; the index has ${deps.provider.dims}`,
      )
    }
    cache.set(query, vector)
    return out
  }

  return { embed }
}

export type QueryEmbedder = ReturnType<typeof createQueryEmbedder>
