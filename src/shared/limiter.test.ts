import { describe, expect, it } from 'vitest'
import { createLimiter } from './limiter.js'

describe('createLimiter', () => {
  it('runs at most `max` calls at once, the rest in arrival order', async () => {
    const limiter = createLimiter(2)
    const gates = [0, 1, 2, 3].map(() => Promise.withResolvers<void>())
    const started: number[] = []
    const runs = gates.map((gate, i) =>
      limiter.run(async () => {
        started.push(i)
        await gate.promise
        return i
      }),
    )
    await Promise.resolve()
    expect(started).toEqual([0, 1])
    expect(limiter.load()).toEqual({ active: 2, waiting: 2 })
    gates[1]?.resolve()
    await runs[1]
    await Promise.resolve()
    expect(started).toEqual([0, 1, 2])
    gates[0]?.resolve()
    gates[2]?.resolve()
    gates[3]?.resolve()
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3])
    expect(limiter.load()).toEqual({ active: 0, waiting: 0 })
  })

  it('frees the slot of a call that fails', async () => {
    const limiter = createLimiter(1)
    await expect(limiter.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    expect(await limiter.run(async () => 'next')).toBe('next')
  })
})
