import { describe, expect, it } from 'vitest'
import type { IndexReader, ReaderOps } from '../../index-reader.js'
import { smallOnMainThread } from './small-index-reader.js'

/** Readers that say who answered. */
function readers() {
  const calls: string[] = []
  const answer = (who: string) => async () => {
    calls.push(who)
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
  return { calls, pooled, local }
}

const filters = {}
const req = { terms: ['x'], limit: 5, filters }

describe('reads of small indexes on the main thread', () => {
  it.each([
    [0, 'local'],
    [999, 'local'],
    [1000, 'local'],
    [1001, 'pool'],
    [100_000, 'pool'],
  ])('reads an index of %i chunks on the %s side, for every operation', async (chunks, side) => {
    const { calls, pooled, local } = readers()
    const reader = smallOnMainThread(pooled, local, () => chunks, 1000)
    await reader.keyword(req)
    await reader.vector({ vector: new Float32Array(2), limit: 5, filters })
    await reader.texts([1])
    expect(calls).toEqual([side, side, side])
  })

  it('moves an index to the workers once it grows, asking its size at each call', async () => {
    const { calls, pooled, local } = readers()
    let chunks = 10
    const reader = smallOnMainThread(pooled, local, async () => chunks, 1000)
    await reader.keyword(req)
    chunks = 5000
    await reader.keyword(req)
    expect(calls).toEqual(['local', 'pool'])
  })
})
