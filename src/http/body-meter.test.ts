import { PassThrough, type Readable } from 'node:stream'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { meterBody, type BodyMeterOptions } from './body-meter.js'

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
})
afterEach(() => {
  vi.useRealTimers()
})

function metered(opts: Partial<BodyMeterOptions> = {}) {
  const source = new PassThrough()
  const taken: number[] = []
  const body = meterBody(source, {
    deadlineMs: 1000,
    idleMs: 300,
    take: (bytes) => (taken.push(bytes), null),
    timedOut: (which) => new Error(which),
    ...opts,
  })
  return { source, body, taken }
}

/** What the body yields until it ends or fails. */
function read(body: Readable) {
  const chunks: Buffer[] = []
  body.on('data', (c: Buffer) => chunks.push(c))
  const outcome = new Promise<Error | 'ended'>((resolve) => {
    body.on('end', () => resolve('ended'))
    body.on('error', resolve)
  })
  return { text: () => Buffer.concat(chunks).toString(), outcome }
}

describe('meterBody', () => {
  it('passes the body on unchanged, having each chunk taken as it arrives', async () => {
    const { source, body, taken } = metered()
    const reader = read(body)
    source.write('hello ')
    await vi.advanceTimersByTimeAsync(200)
    source.end('world')
    expect(await reader.outcome).toBe('ended')
    expect(reader.text()).toBe('hello world')
    expect(taken).toEqual([6, 5])
    // Ended: no timer is left to fire.
    expect(vi.getTimerCount()).toBe(0)
  })

  it('fails a body that keeps arriving but has not ended by its deadline', async () => {
    const { source, body } = metered()
    const reader = read(body)
    for (let i = 0; i < 9; i++) {
      source.write('x')
      await vi.advanceTimersByTimeAsync(100)
    }
    source.write('x')
    await vi.advanceTimersByTimeAsync(100)
    expect(await reader.outcome).toEqual(new Error('deadline'))
    expect(source.isPaused()).toBe(true)
  })

  it('fails a body when no byte arrives for the idle time while it is read', async () => {
    const { source, body } = metered()
    const reader = read(body)
    source.write('x')
    await vi.advanceTimersByTimeAsync(299)
    source.write('y')
    await vi.advanceTimersByTimeAsync(299)
    expect(vi.getTimerCount()).toBe(2)
    await vi.advanceTimersByTimeAsync(1)
    expect(await reader.outcome).toEqual(new Error('idle'))
  })

  it('does not count a slow reader as the client’s stall', async () => {
    const { source, body } = metered({ deadlineMs: 10_000 })
    const reader = read(body)
    body.pause()
    // More than the body's buffer holds: the meter stops reading the source until the reader wants more.
    source.write(Buffer.alloc(64 * 1024))
    await vi.advanceTimersByTimeAsync(2000)
    body.resume()
    source.end()
    expect(await reader.outcome).toBe('ended')
    expect(reader.text()).toHaveLength(64 * 1024)
  })

  it('fails the body with the refusal of a chunk, and reads no more of it', async () => {
    const refusal = new Error('too much')
    const { source, body } = metered({ take: (bytes) => (bytes > 3 ? refusal : null) })
    const reader = read(body)
    source.write('abc')
    await vi.advanceTimersByTimeAsync(0)
    source.write('defg')
    expect(await reader.outcome).toBe(refusal)
    expect(reader.text()).toBe('abc')
    expect(source.listenerCount('data')).toBe(0)
    expect(source.isPaused()).toBe(true)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('fails a body whose client goes away before it ends', async () => {
    const { source, body } = metered()
    const reader = read(body)
    source.write('abc')
    source.destroy()
    expect(await reader.outcome).toBeInstanceOf(Error)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('times out a body nobody reads without throwing', async () => {
    const { body } = metered()
    await vi.advanceTimersByTimeAsync(1000)
    expect(body.destroyed).toBe(true)
  })

  it('stops timing a body nobody reads once it has been discarded to its end', async () => {
    const { source } = metered()
    // What Node does with the body of a request answered without reading it.
    source.resume()
    source.end('unread')
    await vi.advanceTimersByTimeAsync(0)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('keeps reading, untimed, a body that arrived after all when its time is up', async () => {
    const { source, body } = metered({ timedOut: () => null })
    const reader = read(body)
    source.write('x')
    await vi.advanceTimersByTimeAsync(1000)
    expect(vi.getTimerCount()).toBe(0)
    source.end('y')
    expect(await reader.outcome).toBe('ended')
    expect(reader.text()).toBe('xy')
  })
})
