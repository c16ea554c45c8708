/**
 * What a local ONNX model directory must hold, and what it says about the model (pure apart
 * from reading the directory). Checked at start-up, so a wrong MNEMO_LOCAL_MODEL_DIR stops
 * the service with the path in the message instead of failing at the first search.
 */
import fs from 'node:fs'
import path from 'node:path'

/** ONNX weight files in the order mnemo prefers them, with transformers.js's dtype names. */
const WEIGHTS: readonly { file: string; dtype: string }[] = [
  { file: 'onnx/model.onnx', dtype: 'fp32' },
  { file: 'onnx/model_quantized.onnx', dtype: 'q8' },
  { file: 'onnx/model_fp16.onnx', dtype: 'fp16' },
]

export class ModelDirError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ModelDirError'
  }
}

export type ModelDir = {
  dir: string
  /** Name transformers.js loads it by: the folder name under its parent. */
  name: string
  dtype: string
  config: Record<string, unknown>
}

/** Checks the directory and reads config.json; throws ModelDirError naming what is missing. */
export function readModelDir(dir: string, variable: string): ModelDir {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    throw new ModelDirError(`${variable}: model directory ${dir} does not exist`)
  }
  for (const file of ['config.json', 'tokenizer.json']) {
    if (!fs.existsSync(path.join(dir, file))) throw new ModelDirError(`${variable}: ${path.join(dir, file)} is missing`)
  }
  const weights = WEIGHTS.find((w) => fs.existsSync(path.join(dir, w.file)))
  if (!weights) {
    throw new ModelDirError(
      `${variable}: no ONNX weights in ${dir} (expected one of ${WEIGHTS.map((w) => w.file).join(', ')})`,
    )
  }
  let config: Record<string, unknown>
  try {
    config = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')) as Record<string, unknown>
  } catch (err) {
    throw new ModelDirError(
      `${variable}: ${path.join(dir, 'config.json')} is not valid JSON (${(err as Error).message})`,
    )
  }
  return { dir, name: path.basename(dir), dtype: weights.dtype, config }
}

/** Embedding size from config.json (BERT-style hidden_size, or dim / d_model). */
export function modelDims(model: ModelDir, variable: string): number {
  const dims = model.config.hidden_size ?? model.config.dim ?? model.config.d_model
  if (typeof dims !== 'number' || !Number.isInteger(dims) || dims <= 0) {
    throw new ModelDirError(`${variable}: ${path.join(model.dir, 'config.json')} has no hidden_size`)
  }
  return dims
}

/**
 * How token vectors become one vector: sentence-transformers' 1_Pooling/config.json when
 * present, otherwise CLS for BGE models and mean for the rest (E5, GTE, MiniLM).
 */
export function modelPooling(model: ModelDir): 'mean' | 'cls' {
  const poolingFile = path.join(model.dir, '1_Pooling', 'config.json')
  if (fs.existsSync(poolingFile)) {
    const pooling = JSON.parse(fs.readFileSync(poolingFile, 'utf8')) as Record<string, unknown>
    if (pooling.pooling_mode_cls_token === true) return 'cls'
    if (pooling.pooling_mode_mean_tokens === true) return 'mean'
  }
  return /bge/i.test(model.name) ? 'cls' : 'mean'
}

/** Text models expect before queries and passages: E5's "query: "/"passage: ", BGE's instruction. */
export function modelPrefixes(name: string): { query: string; passage: string } {
  if (/e5/i.test(name)) return { query: 'query: ', passage: 'passage: ' }
  if (/bge-.*-zh/i.test(name)) return { query: '为这个句子生成表示以用于检索相关文章：', passage: '' }
  if (/bge-.*-en/i.test(name))
    return { query: 'Represent this sentence for searching relevant passages: ', passage: '' }
  return { query: '', passage: '' }
}
