import { describe, expect, it } from 'vitest'
import { dot } from '../domain/vectors.js'
import { createHashEmbeddings, hashEmbed } from './hash-embeddings.js'

const sim = (a: string, b: string) => dot(hashEmbed(a, 256), hashEmbed(b, 256))

describe('hash embeddings', () => {
  it('are deterministic unit vectors of the configured size', () => {
    const a = hashEmbed('deploy the api gateway', 256)
    expect(a).toHaveLength(256)
    expect(dot(a, a)).toBeCloseTo(1, 5)
    expect(Array.from(hashEmbed('deploy the api gateway', 256))).toEqual(Array.from(a))
  })

  it('place texts that share words, word forms and Chinese characters near each other', () => {
    expect(sim('deploying the gateway', 'deployed a gateway')).toBeGreaterThan(0.5)
    expect(sim('deploying the gateway', 'flight to Tokyo')).toBeLessThan(0.2)
    expect(sim('模型升级到 qwen-max', '升级模型')).toBeGreaterThan(0.4)
    expect(sim('模型升级', '东京的天气')).toBeLessThan(0.2)
  })

  it('find a misspelt name by its character trigrams', () => {
    expect(sim('Shinjuku station', 'Shinjku')).toBeGreaterThan(sim('Shinjuku station', 'Sapporo'))
  })

  it('give text without letters or digits a zero vector', () => {
    expect(Array.from(hashEmbed('*** ---', 32)).every((x) => x === 0)).toBe(true)
  })

  it('serve as an offline provider that needs no cache', async () => {
    const p = createHashEmbeddings({ dims: 64 })
    expect(p).toMatchObject({ id: 'hash', model: 'hash-v2-64', dims: 64, cacheable: false })
    const out = await p.embedBatch(['a b c', 'd e f'])
    expect(out.vectors).toHaveLength(2)
    expect((await p.embedQuery('a b c')).vector).toEqual(out.vectors[0])
  })
})
