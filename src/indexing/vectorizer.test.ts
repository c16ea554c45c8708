import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { EmbeddingProvider } from '../providers/types.js'
import { createEmbeddingCache } from '../store/sqlite/embedding-cache.js'
import { createVectorizer, planBatches } from './vectorizer.js'

const text = (n: number) => ({ input: 'x'.repeat(n * 4) })

describe('planBatches', () => {
  it.each([
    ['by count', [1, 1, 1, 1, 1], 2, 1000, [[0, 1], [2, 3], [4]]],
    [
      'by estimated tokens',
      [40, 40, 40, 10],
      10,
      100,
      [
        [0, 1],
        [2, 3],
      ],
    ],
    ['an oversized text alone', [500, 10, 10], 10, 100, [[0], [1, 2]]],
    ['nothing', [], 10, 100, []],
  ])('%s', (_name, tokens, size, budget, expected) => {
    expect(planBatches(tokens.map(text), size, budget)).toEqual(expected)
  })
})

/** A provider that records its batches and can fail on a given call. */
function recorder(opts: { dims?: number; failOn?: number; wrongDims?: boolean; cacheable?: boolean } = {}) {
  const batches: string[][] = []
  const provider: EmbeddingProvider = {
    id: 'rec',
    model: 'm1',
    dims: opts.dims ?? 3,
    maxBatch: 2,
    cacheable: opts.cacheable ?? true,
    async embedBatch(texts) {
      batches.push(texts)
      if (batches.length === opts.failOn) throw new Error('quota exceeded')
      const dims = opts.wrongDims ? 2 : (opts.dims ?? 3)
      return {
        vectors: texts.map((t) => Float32Array.from({ length: dims }, (_, i) => (t.length + i) / 10)),
        tokens: texts.length,
      }
    },
    embedQuery: async () => ({ vector: new Float32Array(3), tokens: 0 }),
  }
  return { provider, batches }
}

describe('vectorizer', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-vectorizer-'))
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
  const items = (...texts: string[]) => texts.map((t) => ({ hash: `h:${t}`, input: t }))

  it('embeds misses in bounded batches, once per distinct text, and fills the cache', async () => {
    const cache = createEmbeddingCache({ dbPath: path.join(dir, 'a.sqlite'), maxEntries: 100 })
    const { provider, batches } = recorder()
    const v = createVectorizer({ provider, cache, batchSize: 8, batchTokens: 1000, concurrency: 2 })
    const out = await v.vectorize(items('a', 'bb', 'a', 'ccc'))
    expect(batches.flat().sort()).toEqual(['a', 'bb', 'ccc'])
    expect(batches.every((b) => b.length <= 2)).toBe(true)
    expect(out).toMatchObject({ embedded: 3, cacheHits: 0, tokens: 3 })
    expect(out.vectors[0]).toEqual(out.vectors[2])
    const again = await v.vectorize(items('a', 'ccc', 'dddd'))
    expect(batches.flat()).toContain('dddd')
    expect(again).toMatchObject({ embedded: 1, cacheHits: 2 })
    expect(again.vectors.every((x) => x instanceof Float32Array)).toBe(true)
    cache.close()
  })

  it('does not cache providers that are cheaper to run than to look up', async () => {
    const cache = createEmbeddingCache({ dbPath: path.join(dir, 'b.sqlite'), maxEntries: 100 })
    const { provider } = recorder({ cacheable: false })
    await createVectorizer({ provider, cache, batchSize: 8, batchTokens: 1000, concurrency: 1 }).vectorize(items('a'))
    expect(cache.size()).toBe(0)
    cache.close()
  })

  it('stops at the first failed batch and returns what it has, with the error', async () => {
    const { provider, batches } = recorder({ failOn: 2 })
    const out = await createVectorizer({
      provider,
      cache: null,
      batchSize: 2,
      batchTokens: 1000,
      concurrency: 1,
    }).vectorize(items('a', 'b', 'c', 'd', 'e', 'f'))
    expect(batches).toHaveLength(2)
    expect(out.vectors.map((x) => x !== undefined)).toEqual([true, true, false, false, false, false])
    expect(out.error).toMatchObject({ code: 'PROVIDER_FAILED', message: 'rec: quota exceeded' })
  })

  it('embeds a text once when two calls ask for it at the same time', async () => {
    const { provider, batches } = recorder()
    const v = createVectorizer({ provider, cache: null, batchSize: 8, batchTokens: 1000, concurrency: 1 })
    const [first, second] = await Promise.all([v.vectorize(items('a', 'bb')), v.vectorize(items('bb', 'ccc'))])
    expect(batches.flat().sort()).toEqual(['a', 'bb', 'ccc'])
    expect(second.vectors[0]).toEqual(first.vectors[1])
    expect(second).toMatchObject({ embedded: 1, cacheHits: 1 })
  })

  it('leaves a text pending for the waiting call when the call embedding it fails', async () => {
    const { provider, batches } = recorder({ failOn: 1 })
    const v = createVectorizer({ provider, cache: null, batchSize: 8, batchTokens: 1000, concurrency: 1 })
    const [first, second] = await Promise.all([v.vectorize(items('a')), v.vectorize(items('a', 'bb'))])
    expect(first.error).toBeDefined()
    expect(second.vectors.map((x) => x !== undefined)).toEqual([false, true])
    expect(batches.flat().sort()).toEqual(['a', 'bb'])
  })

  it('refuses vectors of the wrong size', async () => {
    const { provider } = recorder({ wrongDims: true })
    const out = await createVectorizer({
      provider,
      cache: null,
      batchSize: 2,
      batchTokens: 1000,
      concurrency: 1,
    }).vectorize(items('a'))
    expect(out.vectors).toEqual([undefined])
    expect(out.error).toMatchObject({ message: 'rec: expected 3 dimensions, got 2' })
  })
})
