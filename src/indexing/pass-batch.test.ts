import { describe, expect, it } from 'vitest'
import type { FileRecord } from '../domain/chunks.js'
import type { FileChanges, SpaceWriter } from '../store/port.js'
import { createPassBatch } from './pass-batch.js'
import type { PreparedFile } from './prepare-file.js'

const prepared = (path: string): PreparedFile => ({
  record: { path, source: 'memory', readSeq: 1 } as FileRecord,
  chunks: [],
  malformed: [],
})

/** A store whose writes end when the test says, recording what it was told in order. */
function slowStore() {
  const events: string[] = []
  const ends: (() => void)[] = []
  const staged: FileChanges[] = []
  const written: FileChanges[] = []
  const name = (changes: FileChanges) => changes.replace?.map((f) => f.record.path).join(',')
  const store = {
    storesVectors: () => false,
    overlapsWrites: true,
    stage: (changes: FileChanges) => {
      staged.push(changes)
      events.push(`stage ${name(changes)}`)
    },
    applyChanges: (changes: FileChanges) => {
      written.push(changes)
      events.push(`write ${name(changes)}`)
      return new Promise<void>((resolve) => ends.push(resolve))
    },
  } as unknown as SpaceWriter
  return { store, events, ends, staged, written }
}

describe('createPassBatch', () => {
  it('stages a batch while the one before it is written, then writes the staged changes', async () => {
    const { store, events, ends, staged, written } = slowStore()
    const batch = createPassBatch({
      targets: { all: () => [store], hold: () => () => undefined },
      steps: { between: async () => undefined },
      embed: async () => undefined,
      overlaps: true,
    })
    batch.add(prepared('a.md'))
    await batch.commit()
    batch.add(prepared('b.md'))
    const second = batch.commit()
    await new Promise((resolve) => setImmediate(resolve))
    // b.md is staged, but not written while a.md's write is in flight.
    expect(events).toEqual(['stage a.md', 'write a.md', 'stage b.md'])
    ends[0]?.()
    await second
    expect(events).toEqual(['stage a.md', 'write a.md', 'stage b.md', 'write b.md'])
    // The very objects staged, which a store keeps its encoding by.
    expect(written).toEqual(staged)
    expect(written[1]).toBe(staged[1])
    ends[1]?.()
    await batch.written()
  })
})
