import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ConfigError } from '../shared/config-error.js'
import { createEmbeddingProvider, createRerankProvider } from './create-providers.js'
import { createOnnxEmbeddings } from './onnx-embeddings.js'
import { createOnnxRerank } from './onnx-rerank.js'
import { modelPooling, modelPrefixes, readModelDir } from './onnx-model-dir.js'
import type { Transformers } from './transformers-runtime.js'
import { loadConfig } from '../config/load-config.js'

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-onnx-'))
afterAll(() => fs.rmSync(base, { recursive: true, force: true }))

/** A model folder with the files transformers.js needs (weights are empty: never run). */
function modelDir(
  name: string,
  opts: { weights?: string; pooling?: 'cls' | 'mean'; hidden?: number; skip?: string } = {},
): string {
  const dir = path.join(base, name)
  fs.mkdirSync(path.join(dir, 'onnx'), { recursive: true })
  const files: Record<string, string> = {
    'config.json': JSON.stringify({ model_type: 'bert', hidden_size: opts.hidden ?? 4 }),
    'tokenizer.json': '{}',
    [opts.weights ?? 'onnx/model.onnx']: '',
  }
  if (opts.pooling) {
    files['1_Pooling/config.json'] = JSON.stringify({
      pooling_mode_cls_token: opts.pooling === 'cls',
      pooling_mode_mean_tokens: opts.pooling === 'mean',
    })
  }
  for (const [file, text] of Object.entries(files)) {
    if (file === opts.skip) continue
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    fs.writeFileSync(path.join(dir, file), text)
  }
  return dir
}

/** A fake transformers.js: records what it is asked and returns fixed token vectors. */
function fakeRuntime() {
  const calls: { pipeline?: unknown[]; run: unknown[][]; pairs?: unknown } = { run: [] }
  const runtime: Transformers = {
    env: { allowRemoteModels: true, allowLocalModels: false, localModelPath: '', cacheDir: null },
    async pipeline(...args) {
      calls.pipeline = args
      return async (texts, opts) => {
        calls.run.push([texts, opts])
        return { data: texts.flatMap((t) => [t.length, 1, 0, 2]), dims: [texts.length, 4] }
      }
    },
    AutoTokenizer: {
      async from_pretrained() {
        return (text, opts) => {
          calls.pairs = { text, ...opts }
          return { ids: text.length }
        }
      },
    },
    AutoModelForSequenceClassification: {
      async from_pretrained() {
        return async () => ({ logits: { data: [2, -2, 0], dims: [3, 1] } })
      },
    },
  }
  return { runtime, calls }
}

describe('local model directories', () => {
  it.each([
    ['missing directory', () => path.join(base, 'nope'), /model directory .*nope does not exist/],
    ['no config.json', () => modelDir('no-config', { skip: 'config.json' }), /no-config\/config.json is missing/],
    [
      'no tokenizer.json',
      () => modelDir('no-tokenizer', { skip: 'tokenizer.json' }),
      /no-tokenizer\/tokenizer.json is missing/,
    ],
    ['no ONNX weights', () => modelDir('no-weights', { skip: 'onnx/model.onnx' }), /no ONNX weights in .*no-weights/],
  ])('refuses a %s at start-up, naming the variable and the path', (_name, make, message) => {
    const dir = make()
    expect(() =>
      createOnnxEmbeddings({
        modelDir: dir,
        allowDownload: false,
        queryPrefix: undefined,
        passagePrefix: undefined,
        maxBatch: 8,
      }),
    ).toThrow(message)
    const config = loadConfig({ MNEMO_EMBED_PROVIDER: 'local', MNEMO_LOCAL_MODEL_DIR: dir }, base)
    expect(() => createEmbeddingProvider(config.embedding)).toThrow(ConfigError)
    expect(() => createEmbeddingProvider(config.embedding)).toThrow(/^MNEMO_LOCAL_MODEL_DIR: /)
  })

  it('picks weights, pooling and prefixes from the folder and the model name', () => {
    expect(readModelDir(modelDir('q', { weights: 'onnx/model_quantized.onnx' }), 'V').dtype).toBe('q8')
    expect(modelPooling(readModelDir(modelDir('st-cls', { pooling: 'cls' }), 'V'))).toBe('cls')
    expect(modelPooling(readModelDir(modelDir('bge-small-en-v1.5'), 'V'))).toBe('cls')
    expect(modelPooling(readModelDir(modelDir('multilingual-e5-small'), 'V'))).toBe('mean')
    expect(modelPrefixes('multilingual-e5-small')).toEqual({ query: 'query: ', passage: 'passage: ' })
    expect(modelPrefixes('bge-small-zh-v1.5').query).toContain('检索')
    expect(modelPrefixes('all-MiniLM-L6-v2')).toEqual({ query: '', passage: '' })
  })
})

describe('local ONNX embeddings', () => {
  it('loads lazily from the configured folder, never from the hub, with the model’s pooling and prefixes', async () => {
    const dir = modelDir('multilingual-e5-small', { hidden: 4 })
    const { runtime, calls } = fakeRuntime()
    const p = createOnnxEmbeddings({
      modelDir: dir,
      allowDownload: false,
      queryPrefix: undefined,
      passagePrefix: undefined,
      maxBatch: 8,
      load: async () => runtime,
    })
    expect(p).toMatchObject({ id: 'local', model: 'multilingual-e5-small', dims: 4, cacheable: true })
    expect(calls.pipeline).toBeUndefined()
    const batch = await p.embedBatch(['alpha', 'beta'])
    expect(calls.pipeline).toEqual([
      'feature-extraction',
      'multilingual-e5-small',
      { dtype: 'fp32', local_files_only: true },
    ])
    expect(runtime.env).toMatchObject({ allowRemoteModels: false, allowLocalModels: true, localModelPath: `${base}/` })
    expect(calls.run[0]).toEqual([['passage: alpha', 'passage: beta'], { pooling: 'mean', normalize: true }])
    for (const v of batch.vectors) expect(Math.hypot(...v)).toBeCloseTo(1, 6)
    await p.embedQuery('what')
    expect(calls.run[1]?.[0]).toEqual(['query: what'])
  })

  it('uses configured prefixes over the defaults and allows downloads only when told', async () => {
    const dir = modelDir('e5-custom')
    const { runtime, calls } = fakeRuntime()
    const p = createOnnxEmbeddings({
      modelDir: dir,
      allowDownload: true,
      queryPrefix: 'Q: ',
      passagePrefix: '',
      maxBatch: 8,
      load: async () => runtime,
    })
    await p.embedQuery('x')
    expect(calls.run[0]?.[0]).toEqual(['Q: x'])
    expect(runtime.env.allowRemoteModels).toBe(true)
    expect(calls.pipeline?.[2]).toEqual({ dtype: 'fp32', local_files_only: false })
  })

  it('reports a missing optional package as a provider error that says what to install', async () => {
    const dir = modelDir('plain')
    const p = createOnnxEmbeddings({
      modelDir: dir,
      allowDownload: false,
      queryPrefix: undefined,
      passagePrefix: undefined,
      maxBatch: 8,
      load: async () => {
        throw new Error(
          'local models need the optional dependency @huggingface/transformers (npm install @huggingface/transformers)',
        )
      },
    })
    await expect(p.embedQuery('x')).rejects.toMatchObject({
      code: 'PROVIDER_FAILED',
      message: expect.stringContaining('npm install @huggingface/transformers'),
    })
  })

  it.skipIf(!process.env.MNEMO_TEST_ONNX_MODEL)('embeds with a real model from MNEMO_TEST_ONNX_MODEL', async () => {
    const p = createOnnxEmbeddings({
      modelDir: process.env.MNEMO_TEST_ONNX_MODEL as string,
      allowDownload: false,
      queryPrefix: undefined,
      passagePrefix: undefined,
      maxBatch: 8,
    })
    const [car, auto, weather] = (await p.embedBatch(['a red car', 'an automobile', 'rain tomorrow'])).vectors
    const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * (b[i] as number), 0)
    expect(dot(car!, auto!)).toBeGreaterThan(dot(car!, weather!))
  })
})

describe('local ONNX reranker', () => {
  it('scores (query, document) pairs with the logistic of the logits', async () => {
    const dir = modelDir('bge-reranker-base')
    const { runtime, calls } = fakeRuntime()
    const r = createOnnxRerank({ modelDir: dir, allowDownload: false, load: async () => runtime })
    const out = await r.rerank('q', ['a', 'b', 'c'], { topN: 3 })
    expect(out.scores.map((s) => Math.round(s * 1000) / 1000)).toEqual([0.881, 0.119, 0.5])
    expect(calls.pairs).toEqual({ text: ['q', 'q', 'q'], text_pair: ['a', 'b', 'c'], padding: true, truncation: true })
  })

  it('refuses a missing folder at start-up, naming its variable', () => {
    const config = loadConfig(
      { MNEMO_RERANK_PROVIDER: 'local', MNEMO_RERANK_LOCAL_MODEL_DIR: path.join(base, 'none') },
      base,
    )
    expect(() => createRerankProvider(config.rerank, false)).toThrow(/^MNEMO_RERANK_LOCAL_MODEL_DIR: model directory/)
  })
})
