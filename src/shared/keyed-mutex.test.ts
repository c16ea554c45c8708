import { describe, expect, it } from 'vitest'
import { createKeyedMutex } from './keyed-mutex.js'

const tick = () => new Promise((r) => setImmediate(r))

describe('keyed mutex', () => {
  it('runs work for one key one at a time, in arrival order, and other keys beside it', async () => {
    const mutex = createKeyedMutex()
    const log: string[] = []
    const job = (key: string, name: string) =>
      mutex.run(key, async () => {
        log.push(`start ${name}`)
        await tick()
        await tick()
        log.push(`end ${name}`)
      })
    await Promise.all([job('a', 'a1'), job('a', 'a2'), job('b', 'b1')])
    expect(log.indexOf('end a1')).toBeLessThan(log.indexOf('start a2'))
    expect(log.indexOf('start b1')).toBeLessThan(log.indexOf('end a1'))
    expect(mutex.busyKeys()).toBe(0)
  })

  it('releases the key when the work throws', async () => {
    const mutex = createKeyedMutex()
    await expect(mutex.run('a', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    await expect(mutex.run('a', async () => 'next')).resolves.toBe('next')
    expect(mutex.busyKeys()).toBe(0)
  })

  it('holds several keys at once without deadlocking callers that name them in another order', async () => {
    const mutex = createKeyedMutex()
    let inside = 0
    let maxInside = 0
    const job = (keys: string[]) =>
      mutex.runAll(keys, async () => {
        inside++
        maxInside = Math.max(maxInside, inside)
        await tick()
        inside--
      })
    await Promise.all([job(['x', 'y']), job(['y', 'x']), job(['x']), job(['y', 'y'])])
    expect(maxInside).toBe(1)
    expect(mutex.busyKeys()).toBe(0)
  })
})
