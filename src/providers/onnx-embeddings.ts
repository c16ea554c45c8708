/**
 * The `local` embedding provider: an ONNX model from MNEMO_LOCAL_MODEL_DIR run by
 * transformers.js (onnxruntime), with the pooling and query/passage prefixes the model
 * expects (onnx-model-dir.ts). The directory is checked when the provider is created; the
 * model loads on first use. Nothing is downloaded unless MNEMO_LOCAL_ALLOW_DOWNLOAD=true.
 */
import path from 'node:path'
import { modelDims, modelPooling, modelPrefixes, readModelDir } from './onnx-model-dir.js'
import { ProviderError } from './provider-error.js'
import { configureRuntime, loadTransformers, type LoadTransformers } from './transformers-runtime.js'
import type { EmbeddingProvider } from './types.js'
import { normalizeVector } from '../domain/vectors.js'

export type OnnxEmbeddingsOptions = {
  modelDir: string
  allowDownload: boolean
  queryPrefix: string | undefined
  passagePrefix: string | undefined
  maxBatch: number
  load?: LoadTransformers
}

export function createOnnxEmbeddings(opts: OnnxEmbeddingsOptions): EmbeddingProvider {
  const model = readModelDir(opts.modelDir, 'MNEMO_LOCAL_MODEL_DIR')
  const dims = modelDims(model, 'MNEMO_LOCAL_MODEL_DIR')
  const pooling = modelPooling(model)
  const defaults = modelPrefixes(model.name)
  const prefixes = { query: opts.queryPrefix ?? defaults.query, passage: opts.passagePrefix ?? defaults.passage }
  let extractor: ReturnType<typeof loadExtractor> | null = null

  async function loadExtractor() {
    const t = await (opts.load ?? loadTransformers)()
    configureRuntime(t, path.dirname(model.dir), opts.allowDownload)
    return t.pipeline('feature-extraction', model.name, { dtype: model.dtype, local_files_only: !opts.allowDownload })
  }

  async function embed(texts: string[]): Promise<Float32Array[]> {
    try {
      extractor ??= loadExtractor()
      const run = await extractor
      const out = await run(texts, { pooling, normalize: true })
      const data = Array.from(out.data)
      return texts.map((_, i) => normalizeVector(data.slice(i * dims, (i + 1) * dims), dims))
    } catch (err) {
      extractor = null
      throw new ProviderError('failed', 'local', (err as Error).message, { cause: err })
    }
  }

  return {
    id: 'local',
    model: model.name,
    dims,
    variant: JSON.stringify({ dir: model.dir, pooling, passage: prefixes.passage }),
    maxBatch: opts.maxBatch,
    cacheable: true,
    async embedBatch(texts) {
      return { vectors: await embed(texts.map((t) => prefixes.passage + t)), tokens: 0 }
    },
    async embedQuery(text) {
      const [vector] = await embed([prefixes.query + text])
      return { vector: vector as Float32Array, tokens: 0 }
    },
  }
}
