import { describe, expect, it } from 'vitest'
import { termHash } from './term-hash.js'

describe('termHash', () => {
  it('is FNV-1a of the code units as a signed 32-bit integer', () => {
    expect(termHash('')).toBe(0x811c9dc5 | 0)
    expect(termHash('a')).toBe(0xe40c292c | 0)
    expect(termHash('foobar')).toBe(0xbf9cf968 | 0)
  })

  it('fits PostgreSQL int4 and tells apart the terms it should', () => {
    for (const term of ['memori', '缓存', '𠀀', 'qwen_max', 't7pfs']) {
      const h = termHash(term)
      expect(Number.isInteger(h) && h >= -(2 ** 31) && h < 2 ** 31).toBe(true)
    }
    expect(termHash('memori')).not.toBe(termHash('memory'))
    // Two terms that share a hash (found by search): the rows and the tests must cope.
    expect(termHash('t7pfs')).toBe(termHash('tovja'))
  })
})
