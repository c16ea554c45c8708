import { describe, expect, it } from 'vitest'
import { createFtsCompaction, isMergeDue } from './fts-compaction.js'

describe('isMergeDue', () => {
  it.each([
    [0, 0, false],
    [0, 100, false],
    [49, 100, false],
    [50, 100, true],
    [25, 25, true],
    [3700, 7477, false],
    [3739, 7477, true],
  ])('after %i of %i chunks written: %s', (written, rows, due) => {
    expect(isMergeDue(written, rows)).toBe(due)
  })
})

describe('createFtsCompaction', () => {
  const steps = () => ({ between: async () => undefined })
  /** The count as an index stores it: here in memory. */
  const stored = () => {
    let chunks = 0
    return { written: () => chunks, setWritten: (n: number) => void (chunks = n) }
  }

  it('merges in steps once half the index was written since the last merge, then counts again', async () => {
    let left = 0
    let merges = 0
    const compaction = createFtsCompaction({
      ...stored(),
      mergeAllStep: () => {
        merges++
        return --left > 0
      },
      rows: () => 100,
    })
    compaction.wrote(30)
    await compaction.compact(steps())
    expect(merges).toBe(0)

    compaction.wrote(20)
    left = 3
    await compaction.compact(steps())
    expect(merges).toBe(3)

    compaction.wrote(10)
    await compaction.compact(steps())
    expect(merges).toBe(3)
  })

  it('counts the index only once writes reach half of its last count', async () => {
    let counts = 0
    const compaction = createFtsCompaction({
      ...stored(),
      mergeAllStep: () => false,
      rows: () => {
        counts++
        return 1000
      },
    })
    await compaction.compact(steps())
    expect(counts).toBe(0)
    compaction.wrote(10)
    await compaction.compact(steps())
    expect(counts).toBe(1)
    for (let i = 0; i < 10; i++) {
      compaction.wrote(10)
      await compaction.compact(steps())
    }
    expect(counts).toBe(1)
    compaction.wrote(400)
    await compaction.compact(steps())
    expect(counts).toBe(2)
  })

  it('merges at a later pass when a step failed', async () => {
    let fail = true
    let merges = 0
    const compaction = createFtsCompaction({
      ...stored(),
      mergeAllStep: () => {
        if (fail) throw new Error('database or disk is full')
        return ++merges < 2
      },
      rows: () => 10,
    })
    compaction.wrote(10)
    await expect(compaction.compact(steps())).rejects.toThrow('full')
    fail = false
    await compaction.compact(steps())
    expect(merges).toBe(2)
  })

  it('waits while the volume has no room for the merge', async () => {
    let room = false
    let merges = 0
    const compaction = createFtsCompaction({
      ...stored(),
      mergeAllStep: () => ++merges < 0,
      rows: () => 10,
      hasRoom: () => room,
    })
    compaction.wrote(10)
    await compaction.compact(steps())
    expect(merges).toBe(0)
    room = true
    await compaction.compact(steps())
    expect(merges).toBe(1)
  })

  it('stops between steps when the pass is aborted', async () => {
    const controller = new AbortController()
    let merges = 0
    const compaction = createFtsCompaction({ ...stored(), mergeAllStep: () => ++merges < 10, rows: () => 10 })
    compaction.wrote(10)
    const between = async () => controller.abort()
    await expect(compaction.compact({ between, signal: controller.signal })).rejects.toThrow()
    expect(merges).toBe(2)
  })
})

describe('createFtsCompaction with a stored count', () => {
  it('merges after a restart what was written before it', async () => {
    let chunks = 0
    const store = { written: () => chunks, setWritten: (n: number) => void (chunks = n) }
    let merges = 0
    createFtsCompaction({ ...store, mergeAllStep: () => false, rows: () => 100 }).wrote(60)
    const restarted = createFtsCompaction({ ...store, mergeAllStep: () => ++merges < 0, rows: () => 100 })
    await restarted.compact({ between: async () => undefined })
    expect(merges).toBe(1)
    expect(chunks).toBe(0)
  })
})
