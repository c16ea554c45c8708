/**
 * The small part of @huggingface/transformers that the local providers use, and its lazy
 * import. The package is an optional dependency (it brings onnxruntime): it is loaded only
 * when a local provider first runs, and its absence is reported as an actionable error.
 * Tests pass a fake runtime instead.
 */

export type Tensor = { data: ArrayLike<number>; dims: number[] }

export type Transformers = {
  env: { allowRemoteModels: boolean; allowLocalModels: boolean; localModelPath: string; cacheDir: string | null }
  pipeline(
    task: 'feature-extraction',
    model: string,
    opts: { dtype: string; local_files_only: boolean },
  ): Promise<(texts: string[], opts: { pooling: 'mean' | 'cls'; normalize: boolean }) => Promise<Tensor>>
  AutoTokenizer: {
    from_pretrained(
      model: string,
      opts: { local_files_only: boolean },
    ): Promise<(text: string[], opts: { text_pair: string[]; padding: boolean; truncation: boolean }) => unknown>
  }
  AutoModelForSequenceClassification: {
    from_pretrained(
      model: string,
      opts: { dtype: string; local_files_only: boolean },
    ): Promise<(inputs: unknown) => Promise<{ logits: Tensor }>>
  }
}

export type LoadTransformers = () => Promise<Transformers>

export const loadTransformers: LoadTransformers = async () => {
  try {
    return (await import('@huggingface/transformers')) as unknown as Transformers
  } catch (err) {
    throw new Error(
      'local models need the optional dependency @huggingface/transformers (npm install @huggingface/transformers)',
      { cause: err },
    )
  }
}

/** Points transformers.js at a model's parent folder; downloads only when allowed. */
export function configureRuntime(t: Transformers, parentDir: string, allowDownload: boolean): void {
  t.env.allowLocalModels = true
  t.env.localModelPath = parentDir.endsWith('/') ? parentDir : `${parentDir}/`
  t.env.allowRemoteModels = allowDownload
  if (allowDownload) t.env.cacheDir = parentDir
}
