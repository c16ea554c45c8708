/**
 * Provider contracts (SPEC §6). Embedding providers return L2-normalised vectors of exactly
 * `dims` numbers (checked at the boundary by vectors.ts); rerank providers return one
 * relevance score per document. Providers are chosen in one factory (create-providers.ts).
 */

export type Embedding = { vector: Float32Array; tokens: number }
export type EmbeddingBatch = { vectors: Float32Array[]; tokens: number }

export interface EmbeddingProvider {
  /** Provider kind: openai, local or hash. */
  readonly id: string
  readonly model: string
  readonly dims: number
  /**
   * What else changes the vectors of a text besides model and dims (the server, prefixes,
   * pooling): part of the embedding cache key, so a changed setting never reuses vectors.
   */
  readonly variant?: string
  /** Most texts per embedBatch call. */
  readonly maxBatch: number
  /** Whether vectors are worth caching (false when computing beats a lookup). */
  readonly cacheable: boolean
  /**
   * Whether query vectors are sparse (a few non-zero dimensions: the hash provider's), which
   * a big sqlite-vec index pre-selects by in memory (store/sqlite/quantized-vectors.ts).
   */
  readonly sparseQueries?: boolean
  embedQuery(text: string, signal?: AbortSignal): Promise<Embedding>
  embedBatch(texts: string[], signal?: AbortSignal): Promise<EmbeddingBatch>
  close?(): Promise<void>
}

/** What GET /index and /ready say about the embedder (wiring/embedding.ts). */
export type EmbedderStatus = {
  /** none: keyword only by configuration; pending: waiting for the server to answer the probe. */
  state: 'none' | 'ready' | 'pending'
  provider: string
  model: string | null
  dims: number | null
  backend: 'sqlite-vec' | 'scan' | 'pgvector' | 'none'
  /** Why it is pending: the last probe's failure. */
  error?: string
  /** When the next probe is due (ISO 8601). */
  nextProbeAt?: string
}

export type RerankResult = { scores: number[]; tokens: number }

export interface RerankProvider {
  readonly id: string
  readonly model: string
  /** One relevance score per document, in the documents' order. */
  rerank(query: string, documents: string[], opts: { topN: number; signal?: AbortSignal }): Promise<RerankResult>
  close?(): Promise<void>
}
