import { pino } from 'pino'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createMemoryReclaimer, isCollectionDue } from './memory-reclaimer.js'

const MB = 1024 * 1024
afterEach(() => {
  vi.useRealTimers()
})

describe('memory reclaimer', () => {
  it('collects once, a quiet time after big work, and not after small work', () => {
    vi.useFakeTimers()
    const collect = vi.fn()
    const r = createMemoryReclaimer({ minBytes: 4 * MB, idleMs: 1000, collect, log: pino({ level: 'silent' }) })
    r.worked(3 * MB)
    vi.advanceTimersByTime(5000)
    expect(collect).not.toHaveBeenCalled()
    r.worked(2 * MB)
    vi.advanceTimersByTime(900)
    // More work postpones it: the collection waits for the service to be quiet.
    r.worked(1 * MB)
    vi.advanceTimersByTime(900)
    expect(collect).not.toHaveBeenCalled()
    vi.advanceTimersByTime(200)
    expect(collect).toHaveBeenCalledTimes(1)
    // The count starts over.
    r.worked(3 * MB)
    vi.advanceTimersByTime(5000)
    expect(collect).toHaveBeenCalledTimes(1)
  })

  it('waits until no indexing pass runs', () => {
    vi.useFakeTimers()
    const collect = vi.fn()
    const r = createMemoryReclaimer({ minBytes: 1, idleMs: 100, collect, log: pino({ level: 'silent' }) })
    const release = r.hold()
    r.worked(10)
    vi.advanceTimersByTime(1000)
    expect(collect).not.toHaveBeenCalled()
    release()
    vi.advanceTimersByTime(100)
    expect(collect).toHaveBeenCalledTimes(1)
  })

  it('gives back what big work left elsewhere as its last pass ends, once per minBytes, and not at a periodic look', () => {
    vi.useFakeTimers()
    const order: string[] = []
    let heap = 50 * MB
    const r = createMemoryReclaimer({
      minBytes: 4 * MB,
      idleMs: 100,
      collect: () => order.push('collect'),
      afterWork: () => order.push('afterWork'),
      heapUsed: () => heap,
      utilization: () => 0.01,
      log: pino({ level: 'silent' }),
    })
    r.start()
    // The periodic look collects garbage, and does not renew threads.
    heap = 120 * MB
    vi.advanceTimersByTime(10_000)
    expect(order).toEqual(['collect'])
    const first = r.hold()
    const second = r.hold()
    r.worked(8 * MB)
    first()
    // Another pass still runs.
    expect(order).toEqual(['collect'])
    second()
    expect(order).toEqual(['collect', 'afterWork'])
    // A small pass right after: nothing more to give back elsewhere.
    const small = r.hold()
    r.worked(1 * MB)
    small()
    vi.advanceTimersByTime(100)
    expect(order).toEqual(['collect', 'afterWork', 'collect'])
    r.close()
  })

  it('keeps reclaiming when what runs after big work throws', () => {
    vi.useFakeTimers()
    const collect = vi.fn()
    const r = createMemoryReclaimer({
      minBytes: 1,
      idleMs: 100,
      collect,
      afterWork: () => {
        throw new Error('no thread to renew')
      },
      log: pino({ level: 'silent' }),
    })
    for (let i = 0; i < 2; i++) {
      const release = r.hold()
      r.worked(10)
      release()
      vi.advanceTimersByTime(100)
    }
    expect(collect).toHaveBeenCalledTimes(2)
  })

  it.each([
    [{ running: 0, utilization: 0.01, heapUsed: 100 * MB, baseline: 40 * MB }, true],
    [{ running: 1, utilization: 0.01, heapUsed: 100 * MB, baseline: 40 * MB }, false],
    [{ running: 0, utilization: 0.5, heapUsed: 100 * MB, baseline: 40 * MB }, false],
    [{ running: 0, utilization: 0.01, heapUsed: 60 * MB, baseline: 40 * MB }, false],
  ])('at a periodic look, decides %j → %s', (state, due) => {
    expect(isCollectionDue(state)).toBe(due)
  })

  it('collects at a periodic look once the service is quiet and the heap has grown', () => {
    vi.useFakeTimers()
    const collect = vi.fn()
    let heap = 50 * MB
    let busy = 0.6
    const r = createMemoryReclaimer({
      collect: () => {
        collect()
        heap = 50 * MB
      },
      heapUsed: () => heap,
      utilization: () => busy,
      log: pino({ level: 'silent' }),
    })
    r.start()
    heap = 120 * MB
    vi.advanceTimersByTime(10_000)
    expect(collect).not.toHaveBeenCalled()
    busy = 0.01
    vi.advanceTimersByTime(10_000)
    expect(collect).toHaveBeenCalledTimes(1)
    vi.advanceTimersByTime(30_000)
    expect(collect).toHaveBeenCalledTimes(1)
    r.close()
  })

  it('runs nothing after close', () => {
    vi.useFakeTimers()
    const collect = vi.fn()
    const r = createMemoryReclaimer({ minBytes: 1, idleMs: 100, collect, log: pino({ level: 'silent' }) })
    r.worked(10)
    r.close()
    vi.advanceTimersByTime(1000)
    expect(collect).not.toHaveBeenCalled()
  })

  it('reaches V8 garbage collection without a command-line flag', () => {
    const r = createMemoryReclaimer({ minBytes: 1, idleMs: 0, log: pino({ level: 'silent' }) })
    let garbage: object[] | null = Array.from({ length: 200_000 }, (_, i) => ({ i }))
    const before = process.memoryUsage().heapUsed
    garbage = null
    vi.useFakeTimers()
    r.worked(1)
    vi.runAllTimers()
    expect(garbage).toBeNull()
    expect(process.memoryUsage().heapUsed).toBeLessThan(before - 4 * MB)
  })

  it('gives the pages a fragmented heap emptied back to the system', () => {
    const r = createMemoryReclaimer({ minBytes: 1, idleMs: 0, log: pino({ level: 'silent' }) })
    vi.useFakeTimers()
    // Settle first, so that what is measured is what this test leaves.
    r.worked(1)
    vi.runAllTimers()
    // One object in ten kept: every page of the garbage keeps a live neighbour, so only a
    // compacting collection can empty and return it.
    let kept: object[] | null = []
    for (let i = 0; i < 1_000_000; i++) {
      const o = { a: `x${i}`, b: [i, i + 1] }
      if (i % 10 === 0) kept.push(o)
    }
    const committed = process.memoryUsage().heapTotal
    r.worked(1)
    vi.runAllTimers()
    expect(kept.length).toBe(100_000)
    expect(process.memoryUsage().heapTotal).toBeLessThan(committed - 16 * MB)
    kept = null
  })
})
