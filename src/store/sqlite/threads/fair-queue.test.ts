import { describe, expect, it } from 'vitest'
import { createFairQueue } from './fair-queue.js'

const drain = (q: ReturnType<typeof createFairQueue<string>>) => {
  const out: string[] = []
  for (let item = q.take(); item !== undefined; item = q.take()) out.push(item)
  return out
}

describe('fair queue', () => {
  it.each([
    [
      'one key keeps its order',
      [
        ['a', 'a1'],
        ['a', 'a2'],
        ['a', 'a3'],
      ],
      ['a1', 'a2', 'a3'],
    ],
    [
      'a key with many items does not hold back the others',
      [
        ['m', 'm1'],
        ['m', 'm2'],
        ['m', 'm3'],
        ['m', 'm4'],
        ['a', 'a1'],
        ['b', 'b1'],
        ['a', 'a2'],
      ],
      ['m1', 'a1', 'b1', 'm2', 'a2', 'm3', 'm4'],
    ],
  ] as const)('%s', (_name, pushes, taken) => {
    const q = createFairQueue<string>()
    for (const [key, item] of pushes) q.push(key, item)
    expect(drain(q)).toEqual(taken)
    expect(q.has()).toBe(false)
  })

  it('shows the item it would take next without taking it', () => {
    const q = createFairQueue<string>()
    expect(q.peek()).toBeUndefined()
    q.push('a', 'a1')
    q.push('b', 'b1')
    q.push('a', 'a2')
    expect(q.peek()).toBe('a1')
    expect(q.take()).toBe('a1')
    expect(q.peek()).toBe('b1')
    expect(drain(q)).toEqual(['b1', 'a2'])
  })

  it('puts an item back at the front of its key, and says which keys have work', () => {
    const q = createFairQueue<string>()
    q.push('a', 'a1')
    q.push('b', 'b1')
    expect(q.take()).toBe('a1')
    expect(q.has('a')).toBe(false)
    q.putBack('a', 'a1')
    q.push('a', 'a2')
    expect(q.has('a')).toBe(true)
    expect(drain(q)).toEqual(['b1', 'a1', 'a2'])
  })

  it('takes the oldest item a taker accepts, passing over what it does not, which keeps its turn', () => {
    const q = createFairQueue<string>()
    q.push('a', 'a1:x')
    q.push('a', 'a2:y')
    q.push('b', 'b1:x')
    q.push('c', 'c1:y')
    const y = (item: string) => item.endsWith(':y')
    expect(q.take(y)).toBe('a2:y')
    expect(q.take(y)).toBe('c1:y')
    expect(q.take(y)).toBeUndefined()
    // `a` had its turn, `b` did not: b's item comes first.
    expect(drain(q)).toEqual(['b1:x', 'a1:x'])
  })
})
