import { describe, expect, it } from 'vitest'
import type { IndexReader, ReaderOps } from '../../index-reader.js'
import { mainThreadWhenCheaper } from './main-thread-reads.js'

/** Readers that say who answered; after `hold()`, a local read waits until its returned function is called. */
function readers() {
  const calls: string[] = []
  let open: () => void = () => undefined
  let held: Promise<void> | null = null
  const answer = (who: string) => async () => {
    calls.push(who)
    if (who === 'local' && held) await held
    return [] as never
  }
  const pooled = {
    keyword: answer('pool'),
    vector: answer('pool'),
    texts: answer('pool'),
    suspend: async () => undefined,
    resume: () => undefined,
    close: async () => undefined,
  } as IndexReader
  const local = { keyword: answer('local'), vector: answer('local'), texts: answer('local') } as ReaderOps
  const hold = () => {
    held = new Promise((resolve) => (open = resolve))
    return () => open()
  }
  return { calls, pooled, local, hold }
}

const filters = {}
const req = { terms: ['x'], limit: 5, filters }
const vectorReq = { vector: new Float32Array(2), limit: 5, filters }
const sizes = { small: 1000, loneChunks: 100_000 }

describe('reads on the main thread where the round trip costs more', () => {
  it.each([
    [0, 'local'],
    [1000, 'local'],
    [1001, 'pool'],
    [100_000, 'pool'],
  ])('reads an index of %i chunks on the %s side while other searches run', async (chunks, side) => {
    const { calls, pooled, local } = readers()
    const reader = mainThreadWhenCheaper(pooled, local, {
      lone: { running: 0 },
      chunks: () => chunks,
      searching: () => true,
      ...sizes,
    })
    await reader.keyword(req)
    await reader.vector(vectorReq)
    await reader.texts([1])
    expect(calls).toEqual([side, side, side])
  })

  it.each([
    [1001, 'local'],
    [100_000, 'local'],
    [100_001, 'pool'],
  ])(
    'reads a lone keyword search of %i chunks on the %s side, its vectors on the workers and its texts in process',
    async (chunks, side) => {
      const { calls, pooled, local } = readers()
      const lone = { running: 0 }
      const reader = mainThreadWhenCheaper(pooled, local, {
        lone,
        chunks: () => chunks,
        searching: () => false,
        ...sizes,
      })
      await reader.keyword(req)
      await reader.vector(vectorReq)
      await reader.texts([1])
      expect(calls).toEqual([side, 'pool', 'local'])
      expect(lone.running).toBe(0)
    },
  )

  it('sends a second search that comes while a lone one runs in process to the workers', async () => {
    const { calls, pooled, local, hold } = readers()
    const reader = mainThreadWhenCheaper(pooled, local, {
      lone: { running: 0 },
      chunks: () => 5000,
      searching: () => false,
      ...sizes,
    })
    const release = hold()
    const first = reader.keyword(req)
    const second = reader.keyword(req)
    await second
    release()
    await first
    expect(calls).toEqual(['pool', 'local'])
    await reader.keyword(req)
    expect(calls).toEqual(['pool', 'local', 'local'])
  })

  it.each([
    ['search', (reader: IndexReader) => reader.keyword(req)],
    ['texts read', (reader: IndexReader) => reader.texts([1])],
  ])('sends a %s of another index that comes while a lone search runs in process to the workers', async (_, call) => {
    const a = readers()
    const b = readers()
    const lone = { running: 0 }
    const options = { chunks: () => 5000, searching: () => false, lone, ...sizes }
    const first = mainThreadWhenCheaper(a.pooled, a.local, options)
    const second = mainThreadWhenCheaper(b.pooled, b.local, options)
    const release = a.hold()
    const running = first.keyword(req)
    await call(second)
    release()
    await running
    await call(second)
    expect([a.calls, b.calls]).toEqual([['local'], ['pool', 'local']])
    expect(lone.running).toBe(0)
  })

  it('moves an index to the workers once it grows, asking its size at each call', async () => {
    const { calls, pooled, local } = readers()
    let chunks = 10
    const reader = mainThreadWhenCheaper(pooled, local, {
      lone: { running: 0 },
      chunks: async () => chunks,
      searching: () => true,
      ...sizes,
    })
    await reader.keyword(req)
    chunks = 5000
    await reader.keyword(req)
    expect(calls).toEqual(['local', 'pool'])
  })
})
