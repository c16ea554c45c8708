/**
 * The embedding side of the composition root: provider, vector layout, index identity,
 * vectorizer, query embedder and cache. Usually fixed at start. An OpenAI-compatible model
 * whose dimensions are neither set nor known, and whose server did not answer at start-up
 * (probe-dims.ts), is bound late: the service starts in keyword mode (searches say why in
 * degraded.vector; GET /index and /ready say "pending"), asks again in the background on
 * the probeDelayMs schedule until the server answers or the service stops, then binds the
 * provider and tells the spaces (onBound). Spaces read everything here at use, so the
 * changed identity drives the existing atomic rebuild, which embeds every chunk. Dimensions
 * remembered from an earlier start are used at once and checked the same way.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { Config } from '../config/config.js'
import { indexIdentity } from '../indexing/index-identity.js'
import { createVectorizer } from '../indexing/vectorizer.js'
import { createEmbeddingProvider, type ProviderDeps } from '../providers/create-providers.js'
import { askEmbeddingDims, dimsKeyOf, needsDimsProbe, probeDelayMs } from '../providers/probe-dims.js'
import { rememberDimsOrWarn } from '../providers/remembered-dims.js'
import type { EmbedderStatus, EmbeddingProvider } from '../providers/types.js'
import { createQueryEmbedder } from '../search/query-embedder.js'
import { appError } from '../shared/errors.js'
import type { Logger } from '../shared/logger.js'
import type { StorageEngine } from '../store/port.js'

export type EmbeddingWiringDeps = {
  config: Pick<Config, 'embedding' | 'chunking'> & { index: Pick<Config['index'], 'dataDir'> }
  log: Logger
  /** Where vectors and the embedding cache live. */
  engine: Pick<StorageEngine, 'vectorLayout' | 'openEmbeddingCache' | 'schemaVersion'>
  /** Replaces the configured provider (tests; null: none). */
  embedder?: EmbeddingProvider | null | undefined
  providerDeps: ProviderDeps
  now?: (() => number) | undefined
}

export function createEmbeddingWiring(deps: EmbeddingWiringDeps) {
  const { config, log } = deps
  const cfg = config.embedding
  const now = deps.now ?? Date.now
  // Asked of the server this run: until it answers, nothing (or what it answered before) is bound.
  const late = deps.embedder === undefined && needsDimsProbe(cfg)
  const initial: EmbeddingProvider | null =
    deps.embedder !== undefined
      ? deps.embedder
      : late && cfg.probedDims === undefined
        ? null
        : createEmbeddingProvider(cfg, deps.providerDeps)
  const configured = initial !== null || late
  const layout = configured ? deps.engine.vectorLayout(cfg.vectorBackend, log) : null
  const backend = layout?.backend ?? null
  // A late provider is OpenAI-compatible, whose vectors are worth caching.
  const cache =
    (initial?.cacheable ?? late)
      ? deps.engine.openEmbeddingCache({ maxEntries: cfg.cacheMaxEntries, now: deps.now })
      : null

  /** Everything derived from one provider (or none). */
  function derive(provider: EmbeddingProvider | null) {
    // The block size and the float copy are part of what an index was built with: another
    // layout rebuilds it. The float copy serves the pre-selection of sparse query vectors
    // only, so an index of a dense model's vectors keeps none (and is not rebuilt for it).
    const chunkSize = {
      ...(layout?.chunkSize !== undefined && { chunkSize: layout.chunkSize }),
      ...(layout?.floatCopy && provider?.sparseQueries && { floatCopy: true }),
    }
    const embedding = provider &&
      backend && { provider: provider.id, model: provider.model, dims: provider.dims, backend, ...chunkSize }
    return {
      provider,
      vectors: provider &&
        layout && { backend: layout.backend, dims: provider.dims, shards: layout.shards, ...chunkSize },
      embedding,
      identity: indexIdentity(deps.engine.schemaVersion, config.chunking, embedding),
      vectorizer:
        provider &&
        createVectorizer({
          provider,
          cache,
          batchSize: cfg.batchSize,
          batchTokens: cfg.batchTokens,
          concurrency: cfg.concurrency,
        }),
      queryEmbedder: provider && createQueryEmbedder({ provider, timeoutMs: cfg.queryTimeoutMs }),
    }
  }

  let bound = derive(initial)
  /** Set while a background probe is due: why the last one failed, and when the next runs. */
  let probing: { error: string; nextAt: number } | null =
    late && (cfg.probeError !== undefined || cfg.probedDims === undefined)
      ? { error: cfg.probeError ?? 'not asked yet', nextAt: now() }
      : null
  const stop = new AbortController()
  let loop: Promise<void> | null = null
  /** Told when a provider is bound (each space then requests the sync that rebuilds it). */
  const listeners = new Set<() => void>()

  /** Why vector search is not available yet, for degraded.vector and EMBEDDING_UNAVAILABLE. */
  const pendingMessage = () =>
    `the embedding server has not answered yet (${probing?.error ?? 'not asked yet'}); ` +
    'keyword results until it does (asked again in the background)'

  /** Binds the provider of `dims` (or rebinds it, when the server now answers other dimensions). */
  function bind(dims: number): void {
    const provider = createEmbeddingProvider({ ...cfg, probedDims: dims }, deps.providerDeps)
    const previous = bound.provider
    bound = derive(provider)
    void previous?.close?.()
  }

  async function probeUntilAnswered(): Promise<void> {
    for (let attempt = 0; !stop.signal.aborted; attempt++) {
      const delay = probeDelayMs(attempt)
      if (probing) probing.nextAt = now() + delay
      try {
        await sleep(delay, undefined, { signal: stop.signal })
        const dims = await askEmbeddingDims(cfg, {
          timeoutMs: cfg.timeoutMs,
          signal: stop.signal,
          ...(deps.providerDeps.http && { http: deps.providerDeps.http }),
        })
        if (stop.signal.aborted) return
        rememberDimsOrWarn(config.index.dataDir, dimsKeyOf(cfg), dims, log)
        probing = null
        if (dims === bound.provider?.dims) {
          log.info({ dims }, 'the embedding server answered: the dimensions are as remembered')
          return
        }
        bind(dims)
        log.info({ model: bound.provider?.model, dims }, 'the embedding server answered: vectors are on; rebuilding')
        for (const listener of listeners) listener()
        return
      } catch (err) {
        if (stop.signal.aborted) return
        const error = err instanceof Error ? err.message : String(err)
        probing = { error, nextAt: now() + probeDelayMs(attempt + 1) }
        log.warn(
          { error, retryInMs: probeDelayMs(attempt + 1) },
          'the embedding server did not answer the dimensions probe; asking again later',
        )
      }
    }
  }

  return {
    cache,
    /** The layout every index should store vectors in now (null: keyword only). */
    vectors: () => bound.vectors,
    /** The settings indexes are built with now (index-identity.ts). */
    identity: () => bound.identity,
    vectorizer: () => bound.vectorizer,
    /**
     * Query embeddings for searches: null when no embedder is configured; while the provider
     * is pending, every call fails with EMBEDDING_UNAVAILABLE (hybrid searches degrade).
     */
    queryEmbedder: configured
      ? {
          embed: (query: string) =>
            bound.queryEmbedder
              ? bound.queryEmbedder.embed(query)
              : Promise.reject(appError('EMBEDDING_UNAVAILABLE', pendingMessage())),
        }
      : null,
    status(): EmbedderStatus {
      const p = bound.provider
      if (p) return { state: 'ready', provider: p.id, model: p.model, dims: p.dims, backend: backend ?? 'none' }
      if (!late) return { state: 'none', provider: 'none', model: null, dims: null, backend: 'none' }
      return {
        state: 'pending',
        provider: 'openai',
        model: cfg.model ?? null,
        dims: null,
        backend: 'none',
        ...(probing && { error: probing.error, nextProbeAt: new Date(probing.nextAt).toISOString() }),
      }
    },
    /** Calls `listener` whenever a provider is bound late; returns the call that stops it. */
    onBound(listener: () => void): () => void {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    /** Starts asking the server in the background when this start could not confirm the dimensions. */
    start(): void {
      if (!probing || loop || stop.signal.aborted) return
      loop = probeUntilAnswered()
    },
    /** Stops the background probe and closes the provider. */
    async close(): Promise<void> {
      stop.abort()
      await loop
      await bound.provider?.close?.()
    },
  }
}

export type EmbeddingWiring = ReturnType<typeof createEmbeddingWiring>
