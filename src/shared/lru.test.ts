import { describe, expect, it } from 'vitest'
import { createLru } from './lru.js'

describe('lru', () => {
  it('drops the least recently used entry past its size', () => {
    const lru = createLru<string, number>(2)
    lru.set('a', 1)
    lru.set('b', 2)
    expect(lru.get('a')).toBe(1)
    lru.set('c', 3)
    expect(lru.get('b')).toBeUndefined()
    expect(lru.get('a')).toBe(1)
    expect(lru.get('c')).toBe(3)
    lru.set('a', 10)
    expect(lru.size).toBe(2)
    expect(lru.get('a')).toBe(10)
  })
})

describe('lru eviction', () => {
  it('hands dropped and deleted entries to onEvict, once each', () => {
    const evicted: [string, number][] = []
    const lru = createLru<string, number>(2, (k, v) => evicted.push([k, v]))
    lru.set('a', 1)
    lru.set('b', 2)
    lru.set('c', 3)
    expect(evicted).toEqual([['a', 1]])
    expect(lru.delete('b')).toBe(true)
    expect(lru.delete('b')).toBe(false)
    expect(evicted).toEqual([
      ['a', 1],
      ['b', 2],
    ])
    expect(lru.size).toBe(1)
  })
})

describe('lru weight', () => {
  it('drops the oldest entries while the total weight is over its bound, keeping the newest', () => {
    const lru = createLru<string, string>(100, { maxWeight: 10, weigh: (v) => v.length })
    lru.set('a', 'xxxx')
    lru.set('b', 'xxxx')
    expect(lru.weight).toBe(8)
    lru.set('c', 'xxxx')
    expect([lru.get('a'), lru.get('b') !== undefined, lru.get('c') !== undefined]).toEqual([undefined, true, true])
    lru.set('b', 'x')
    expect(lru.weight).toBe(5)
    lru.set('huge', 'x'.repeat(50))
    expect(lru.size).toBe(1)
    expect(lru.get('huge')).toHaveLength(50)
  })
})
