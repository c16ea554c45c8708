/**
 * The `local` reranker: an ONNX cross-encoder (e.g. bge-reranker) from
 * MNEMO_RERANK_LOCAL_MODEL_DIR, scoring (query, document) pairs; logits pass through the
 * logistic function. Same loading rules as the local embeddings.
 */
import path from 'node:path'
import { readModelDir } from './onnx-model-dir.js'
import { ProviderError } from './provider-error.js'
import { configureRuntime, loadTransformers, type LoadTransformers } from './transformers-runtime.js'
import type { RerankProvider } from './types.js'

export function createOnnxRerank(opts: {
  modelDir: string
  allowDownload: boolean
  load?: LoadTransformers
}): RerankProvider {
  const model = readModelDir(opts.modelDir, 'MNEMO_RERANK_LOCAL_MODEL_DIR')
  let loaded: ReturnType<typeof load> | null = null

  async function load() {
    const t = await (opts.load ?? loadTransformers)()
    configureRuntime(t, path.dirname(model.dir), opts.allowDownload)
    const local_files_only = !opts.allowDownload
    const [tokenizer, classifier] = await Promise.all([
      t.AutoTokenizer.from_pretrained(model.name, { local_files_only }),
      t.AutoModelForSequenceClassification.from_pretrained(model.name, { dtype: model.dtype, local_files_only }),
    ])
    return { tokenizer, classifier }
  }

  return {
    id: 'local',
    model: model.name,
    async rerank(query, documents) {
      try {
        loaded ??= load()
        const { tokenizer, classifier } = await loaded
        const inputs = tokenizer(
          documents.map(() => query),
          { text_pair: documents, padding: true, truncation: true },
        )
        const { logits } = await classifier(inputs)
        const perRow = logits.data.length / documents.length
        const scores = documents.map((_, i) => 1 / (1 + Math.exp(-(logits.data[i * perRow] as number))))
        return { scores, tokens: 0 }
      } catch (err) {
        loaded = null
        throw new ProviderError('failed', 'local', (err as Error).message, { cause: err })
      }
    },
  }
}
