/**
 * OpenAI-compatible embeddings (SPEC §6): POST {baseUrl}/embeddings, as served by OpenAI,
 * DashScope/Bailian (compatible-mode), Ollama, vLLM, TEI and LM Studio. Every vector is
 * checked (count, dimension, finite values) and normalised before it reaches the index.
 */
import { z } from 'zod'
import { defaultHttpDeps, postJson, type HttpDeps } from './http-json.js'
import { ProviderError } from './provider-error.js'
import type { EmbeddingBatch, EmbeddingProvider } from './types.js'
import { normalizeVector, vectorProblem } from './vectors.js'

export const OPENAI_DEFAULT_MODEL = 'text-embedding-3-small'

/** Dimensions of well-known models, used when MNEMO_EMBED_DIMENSIONS is not set. */
export const KNOWN_MODEL_DIMS: Readonly<Record<string, number>> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
  'text-embedding-v4': 1024,
  'text-embedding-v3': 1024,
  'text-embedding-v2': 1536,
  'nomic-embed-text': 768,
  'mxbai-embed-large': 1024,
  'bge-m3': 1024,
  'all-minilm': 384,
}

export const EmbeddingsResponse = z.object({
  data: z.array(z.object({ index: z.number().int().nonnegative(), embedding: z.array(z.number()) })),
  usage: z.object({ total_tokens: z.number().optional(), prompt_tokens: z.number().optional() }).optional(),
})

export type OpenAiEmbeddingsOptions = {
  baseUrl: string
  apiKey: string | undefined
  model: string
  dims: number
  /** Send `dimensions` in the request (only when the user configured it). */
  sendDimensions: boolean
  maxBatch: number
  timeoutMs: number
  maxRetries: number
  http?: HttpDeps
}

/** The embeddings endpoint under a base URL (…/v1 → …/v1/embeddings). */
export const embeddingsUrl = (baseUrl: string) => `${baseUrl.replace(/\/+$/, '')}/embeddings`

export function createOpenAiEmbeddings(opts: OpenAiEmbeddingsOptions): EmbeddingProvider {
  const url = embeddingsUrl(opts.baseUrl)
  const headers: Record<string, string> = opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}
  const http = opts.http ?? defaultHttpDeps

  async function embedBatch(texts: string[], signal?: AbortSignal): Promise<EmbeddingBatch> {
    const body = {
      model: opts.model,
      input: texts,
      encoding_format: 'float',
      ...(opts.sendDimensions ? { dimensions: opts.dims } : {}),
    }
    const json = await postJson(
      url,
      body,
      { provider: 'openai', headers, timeoutMs: opts.timeoutMs, maxRetries: opts.maxRetries, signal },
      http,
    )
    const parsed = EmbeddingsResponse.safeParse(json)
    if (!parsed.success) throw new ProviderError('failed', 'openai', 'response is not an embeddings list')
    const data = [...parsed.data.data].sort((a, b) => a.index - b.index)
    if (data.length !== texts.length)
      throw new ProviderError('failed', 'openai', `expected ${texts.length} embeddings, got ${data.length}`)
    const vectors = data.map((d, i) => {
      const problem = vectorProblem(d.embedding, opts.dims)
      if (problem) throw new ProviderError('failed', 'openai', `embedding ${i}: ${problem}`)
      return normalizeVector(d.embedding, opts.dims)
    })
    const usage = parsed.data.usage
    return { vectors, tokens: usage?.total_tokens ?? usage?.prompt_tokens ?? 0 }
  }

  return {
    id: 'openai',
    model: opts.model,
    dims: opts.dims,
    // Two servers may give one model name different vectors (versions, quantisations).
    variant: url,
    maxBatch: opts.maxBatch,
    cacheable: true,
    embedBatch,
    async embedQuery(text, signal) {
      const out = await embedBatch([text], signal)
      return { vector: out.vectors[0] as Float32Array, tokens: out.tokens }
    },
  }
}
