import { describe, expect, it } from 'vitest'
import { termCheck, termHash } from './term-hash.js'

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

describe('termCheck', () => {
  it('fits PostgreSQL int4 and tells apart terms that share a first hash', () => {
    for (const term of ['', 'memori', '缓存', '𠀀', 'qwen_max', 't7pfs']) {
      const h = termCheck(term)
      expect(Number.isInteger(h) && h >= -(2 ** 31) && h < 2 ** 31).toBe(true)
    }
    expect(termCheck('t7pfs')).not.toBe(termCheck('tovja'))
  })

  it('gives 100,000 terms as many distinct pairs of hashes, and spreads its own values', () => {
    const terms = Array.from({ length: 100_000 }, (_, i) => `t${i.toString(36)}`)
    expect(new Set(terms.map((t) => `${termHash(t)}:${termCheck(t)}`)).size).toBe(terms.length)
    // Alone, a 32-bit hash of 100,000 values collides about once: far fewer means it is not spread.
    expect(new Set(terms.map(termCheck)).size).toBeGreaterThan(terms.length - 10)
  })
})
