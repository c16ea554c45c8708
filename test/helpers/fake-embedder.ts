/**
 * A deterministic embedding provider for tests. Words of the same concept (car, automobile,
 * vehicle, 汽车 …) share one dimension, so it plays a semantic model where keywords and
 * vectors disagree; other words hash into the remaining dimensions. It counts calls and can
 * be told to fail or to answer slowly.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { EmbeddingProvider } from '../../src/providers/types.js'

const CONCEPTS: readonly string[][] = [
  ['car', 'cars', 'automobile', 'vehicle', 'sedan', '汽车', '车辆'],
  ['fix', 'repair', 'maintenance', 'mechanic', 'service', '维修', '保养'],
  ['sleep', 'insomnia', 'rest', 'nap', '睡眠', '失眠'],
  ['happy', 'joy', 'cheerful', 'glad', '开心', '快乐'],
]

export type FakeEmbedder = {
  provider: EmbeddingProvider
  /** Texts embedded so far (batch and query calls). */
  texts: string[]
  calls: () => number
  fail: (error?: Error) => void
  recover: () => void
  slow: (ms: number) => void
}

export function createFakeEmbedder(opts: { dims?: number; model?: string } = {}): FakeEmbedder {
  const dims = opts.dims ?? 16
  const texts: string[] = []
  let calls = 0
  let failure: Error | null = null
  let delayMs = 0

  function embedOne(text: string): Float32Array {
    const v = new Float32Array(dims)
    const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
    for (const word of words) {
      const concept = CONCEPTS.findIndex((c) => c.some((w) => word.includes(w)))
      if (concept >= 0) v[concept] = (v[concept] as number) + 3
      else {
        let h = 0
        for (const ch of word) h = (h * 31 + ch.charCodeAt(0)) >>> 0
        const i = CONCEPTS.length + (h % (dims - CONCEPTS.length))
        v[i] = (v[i] as number) + 0.2
      }
    }
    const norm = Math.hypot(...v) || 1
    return v.map((x) => x / norm)
  }

  async function run<T>(batch: string[], make: () => T, signal?: AbortSignal): Promise<T> {
    calls++
    texts.push(...batch)
    if (delayMs > 0) await sleep(delayMs, undefined, { signal })
    if (failure) throw failure
    return make()
  }

  return {
    provider: {
      id: 'fake',
      model: opts.model ?? 'fake-concepts',
      dims,
      maxBatch: 8,
      cacheable: true,
      embedBatch: (batch, signal) =>
        run(batch, () => ({ vectors: batch.map(embedOne), tokens: batch.length * 10 }), signal),
      embedQuery: (text, signal) => run([text], () => ({ vector: embedOne(text), tokens: 7 }), signal),
    },
    texts,
    calls: () => calls,
    fail: (error = new Error('embedding service down')) => (failure = error),
    recover: () => (failure = null),
    slow: (ms) => (delayMs = ms),
  }
}
