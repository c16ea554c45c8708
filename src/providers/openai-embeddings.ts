/**
 * OpenAI-compatible embeddings (SPEC §6): POST {baseUrl}/embeddings, as served by OpenAI,
 * DashScope/Bailian (compatible-mode), Ollama, vLLM, TEI and LM Studio. Every vector is
 * checked (count, dimension, finite values) and normalised before it reaches the index.
 */
import { z } from 'zod'
import { defaultHttpDeps, postJson, type HttpDeps } from './http-json.js'
import { ProviderError } from './provider-error.js'
import type { EmbeddingBatch, EmbeddingProvider } from './types.js'
import { normalizeVector, vectorProblem } from '../domain/vectors.js'

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

const EmbeddingsResponse = z.object({
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

/** Where and how to ask an OpenAI-compatible server for embeddings. */
export type EmbeddingsEndpoint = Pick<
  OpenAiEmbeddingsOptions,
  'baseUrl' | 'apiKey' | 'model' | 'timeoutMs' | 'maxRetries' | 'http'
>

/**
 * One POST {baseUrl}/embeddings: the raw embeddings in input order (one per text) and the
 * tokens reported. `dimensions` is sent only when given. Used by the provider and by the
 * start-up dimensions probe (probe-dims.ts).
 */
export async function requestEmbeddings(
  endpoint: EmbeddingsEndpoint,
  texts: string[],
  opts: { dimensions?: number; signal?: AbortSignal | undefined } = {},
): Promise<{ embeddings: number[][]; tokens: number }> {
  const body = {
    model: endpoint.model,
    input: texts,
    encoding_format: 'float',
    ...(opts.dimensions === undefined ? {} : { dimensions: opts.dimensions }),
  }
  const headers: Record<string, string> = endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}
  const json = await postJson(
    embeddingsUrl(endpoint.baseUrl),
    body,
    {
      provider: 'openai',
      headers,
      timeoutMs: endpoint.timeoutMs,
      maxRetries: endpoint.maxRetries,
      signal: opts.signal,
    },
    endpoint.http ?? defaultHttpDeps,
  )
  const parsed = EmbeddingsResponse.safeParse(json)
  if (!parsed.success) throw new ProviderError('failed', 'openai', 'response is not an embeddings list')
  const data = [...parsed.data.data].sort((a, b) => a.index - b.index)
  if (data.length !== texts.length)
    throw new ProviderError('failed', 'openai', `expected ${texts.length} embeddings, got ${data.length}`)
  const usage = parsed.data.usage
  return { embeddings: data.map((d) => d.embedding), tokens: usage?.total_tokens ?? usage?.prompt_tokens ?? 0 }
}

export function createOpenAiEmbeddings(opts: OpenAiEmbeddingsOptions): EmbeddingProvider {
  async function embedBatch(texts: string[], signal?: AbortSignal): Promise<EmbeddingBatch> {
    const out = await requestEmbeddings(opts, texts, {
      ...(opts.sendDimensions ? { dimensions: opts.dims } : {}),
      signal,
    })
    const vectors = out.embeddings.map((embedding, i) => {
      const problem = vectorProblem(embedding, opts.dims)
      if (problem) throw new ProviderError('failed', 'openai', `embedding ${i}: ${problem}`)
      return normalizeVector(embedding, opts.dims)
    })
    return { vectors, tokens: out.tokens }
  }

  return {
    id: 'openai',
    model: opts.model,
    dims: opts.dims,
    // Two servers may give one model name different vectors (versions, quantisations).
    variant: embeddingsUrl(opts.baseUrl),
    maxBatch: opts.maxBatch,
    cacheable: true,
    embedBatch,
    async embedQuery(text, signal) {
      const out = await embedBatch([text], signal)
      return { vector: out.vectors[0] as Float32Array, tokens: out.tokens }
    },
  }
}
