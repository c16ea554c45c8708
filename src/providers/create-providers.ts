/**
 * The one place providers are chosen from config (SPEC §6). `auto` embeddings: local when
 * MNEMO_LOCAL_MODEL_DIR names an existing directory, else openai when MNEMO_EMBED_BASE_URL
 * is set, else AUTO_OFFLINE — the offline choice that scored better on the dev sets (none).
 */
import fs from 'node:fs'
import type { Config } from '../config/config.js'
import { ConfigError } from '../shared/config-error.js'
import { createDashscopeRerank } from './dashscope-rerank.js'
import { createHashEmbeddings } from './hash-embeddings.js'
import type { HttpDeps } from './http-json.js'
import { ModelDirError } from './onnx-model-dir.js'
import { createOnnxEmbeddings } from './onnx-embeddings.js'
import { createOnnxRerank } from './onnx-rerank.js'
import { createHttpRerank } from './http-rerank.js'
import { createOpenAiEmbeddings, KNOWN_MODEL_DIMS, OPENAI_DEFAULT_MODEL } from './openai-embeddings.js'
import type { LoadTransformers } from './transformers-runtime.js'
import type { EmbeddingProvider, RerankProvider } from './types.js'

/**
 * What `auto` uses without a model directory or an API. Measured with `npm run eval` at the
 * default weights (BENCHMARKS.md): keyword search alone beat hybrid with `hash` vectors on all
 * three dev sets (SciFact nDCG@10 0.688 vs 0.623; CMRC Recall@1 0.987 vs 0.966).
 */
export const AUTO_OFFLINE: 'hash' | 'none' = 'none'

export type ProviderDeps = { http?: HttpDeps; loadTransformers?: LoadTransformers }

export function resolveEmbeddingKind(cfg: Config['embedding']): Exclude<Config['embedding']['provider'], 'auto'> {
  if (cfg.provider !== 'auto') return cfg.provider
  if (cfg.localModelDir && fs.existsSync(cfg.localModelDir)) return 'local'
  if (cfg.baseUrl) return 'openai'
  return AUTO_OFFLINE
}

function openAiDims(cfg: Config['embedding'], model: string): number {
  const dims = cfg.dims ?? KNOWN_MODEL_DIMS[model] ?? cfg.probedDims
  if (dims === undefined) {
    throw new ConfigError(
      `MNEMO_EMBED_DIMENSIONS: needed for model "${model}" (mnemo does not know its size and has not asked the server)`,
    )
  }
  return dims
}

/** The configured embedding provider, or null for keyword-only search. */
export function createEmbeddingProvider(cfg: Config['embedding'], deps: ProviderDeps = {}): EmbeddingProvider | null {
  const kind = resolveEmbeddingKind(cfg)
  switch (kind) {
    case 'none':
      return null
    case 'hash':
      return createHashEmbeddings({ dims: cfg.hashDims })
    case 'openai': {
      const model = cfg.model ?? OPENAI_DEFAULT_MODEL
      return createOpenAiEmbeddings({
        baseUrl: cfg.baseUrl as string,
        apiKey: cfg.apiKey,
        model,
        dims: openAiDims(cfg, model),
        sendDimensions: cfg.dims !== undefined,
        maxBatch: cfg.batchSize,
        timeoutMs: cfg.timeoutMs,
        maxRetries: cfg.maxRetries,
        ...(deps.http && { http: deps.http }),
      })
    }
    case 'local':
      try {
        return createOnnxEmbeddings({
          modelDir: cfg.localModelDir as string,
          allowDownload: cfg.allowDownload,
          queryPrefix: cfg.queryPrefix,
          passagePrefix: cfg.passagePrefix,
          maxBatch: cfg.batchSize,
          ...(deps.loadTransformers && { load: deps.loadTransformers }),
        })
      } catch (err) {
        if (err instanceof ModelDirError) throw new ConfigError(err.message, { cause: err })
        throw err
      }
  }
}

/** The configured reranker, or null when reranking is off. */
export function createRerankProvider(
  cfg: Config['rerank'],
  allowDownload: boolean,
  deps: ProviderDeps = {},
): RerankProvider | null {
  const http = deps.http && { http: deps.http }
  switch (cfg.provider) {
    case 'none':
      return null
    case 'http':
      return createHttpRerank({
        baseUrl: cfg.baseUrl as string,
        apiKey: cfg.apiKey,
        model: cfg.model,
        timeoutMs: cfg.timeoutMs,
        ...http,
      })
    case 'dashscope':
      return createDashscopeRerank({
        url: cfg.baseUrl,
        apiKey: cfg.apiKey as string,
        model: cfg.model,
        timeoutMs: cfg.timeoutMs,
        ...http,
      })
    case 'local':
      try {
        return createOnnxRerank({
          modelDir: cfg.localModelDir as string,
          allowDownload,
          ...(deps.loadTransformers && { load: deps.loadTransformers }),
        })
      } catch (err) {
        if (err instanceof ModelDirError) throw new ConfigError(err.message, { cause: err })
        throw err
      }
  }
}
