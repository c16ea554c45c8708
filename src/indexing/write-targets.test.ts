import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { FileRecord } from '../domain/chunks.js'
import { keywordSqliteEngine } from '../../test/helpers/sqlite-engine.js'
import { termChunk } from '../../test/helpers/term-chunk.js'
import { createPassBatch } from './pass-batch.js'
import { createWriteTargets } from './write-targets.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

function openSpace() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-targets-'))
  dirs.push(dir)
  return keywordSqliteEngine(dir).openSpace({ kind: 'agent', id: 'main' })
}

const record = (p: string, readSeq: number): FileRecord => ({
  path: p,
  source: 'memory',
  sha256: `sha-${p}`,
  sizeBytes: 10,
  mtimeMs: 1000,
  lineCount: 1,
  chunkCount: 1,
  indexedAtMs: 2000,
  readSeq,
})

/** A gate the test opens: what awaits `wait()` before `open()` stays parked. */
function gate() {
  let open = () => undefined as void
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { wait: () => opened, open }
}

describe('write targets', () => {
  it('keep a rebuild from swapping its index in while a change has reached the live index and not yet the new one', async () => {
    const live = openSpace()
    const targets = createWriteTargets(live)
    const next = await live.beginRebuild()
    targets.add(next)
    // Parks the change after its first transaction into the live index, where no file lock
    // is held (staged-changes.ts) and the new index has not seen it yet.
    const parked = gate()
    let reachedGate!: () => void
    const atGate = new Promise<void>((resolve) => (reachedGate = resolve))
    const batch = createPassBatch({
      targets,
      steps: {
        between: () => {
          reachedGate()
          return parked.wait()
        },
      },
      embed: async () => undefined,
      overlaps: false,
    })
    batch.add({ record: record('memory/during.md', 1), chunks: [termChunk(1, ['harbour'], [])], malformed: [] })
    const written = batch.commit()
    await atGate
    expect(targets.writes.idle()).toBe(false)

    let swapped = false
    const committed = next
      .commit({
        signal: new AbortController().signal,
        readers: { suspend: async () => undefined, resume: () => undefined },
        detach: () => targets.remove(next),
        writes: targets.writes,
      })
      .then(() => (swapped = true))
    await new Promise((resolve) => setTimeout(resolve, 150))
    expect(swapped).toBe(false)

    parked.open()
    await written
    await committed
    expect(targets.all()).toEqual([live])
    expect(targets.writes.idle()).toBe(true)
    // The index swapped in holds the change that was in flight.
    expect((await live.listFiles()).map((f) => f.path)).toEqual(['memory/during.md'])
    await live.close()
  })
})
