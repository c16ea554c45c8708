import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { prepareFile } from '../../indexing/prepare-file.js'
import { queryTerms } from '../../text/analyzer.js'
import { createIndexStore } from './index-store.js'
import { checkpointWal } from './wal-checkpoint.js'
import { CHUNKS_VERSION_KEY } from './schema.js'

const CHUNKING = { maxTokens: 60, overlapTokens: 10 }
const slicer = { maybeYield: async () => undefined }
/** The analysed terms of walrus and penguin (stemmed as the index stores them). */
const TERMS = queryTerms('walrus penguin')

async function prepared(rel: string, text: string, readSeq = 1) {
  return prepareFile({ rel, text, sha256: rel, sizeBytes: 1, mtimeMs: 0, indexedAtMs: 0, readSeq }, CHUNKING, slicer)
}

describe('a read-only index store', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-index-store-'))
  const dbPath = path.join(dir, 'index.sqlite')
  const writer = createIndexStore({ dbPath })
  const reader = createIndexStore({ dbPath, readonly: true })
  afterAll(() => {
    reader.close()
    writer.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it('refreshes its cached term statistics when another connection commits', async () => {
    const first = await prepared('memory/a.md', '## one\nwalrus tusk\n\n## two\nwalrus snow')
    writer.transaction((r) => r.replaceFile(first.record, first.chunks))
    expect(reader.keywordStats(TERMS).docFreqs).toEqual([2, 0])
    const rowsBefore = reader.corpusStats().rows
    const generation = reader.generation()

    const second = await prepared('memory/b.md', '## three\npenguin walrus')
    writer.transaction((r) => r.replaceFile(second.record, second.chunks))

    expect(reader.generation()).not.toBe(generation)
    expect(reader.keywordStats(TERMS).docFreqs).toEqual([3, 1])
    expect(reader.corpusStats().rows).toBe(rowsBefore + 1)
  })
})

describe("an index's chunk count", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-index-store-'))
  const dbPath = path.join(dir, 'index.sqlite')
  const writer = createIndexStore({ dbPath })
  const reader = createIndexStore({ dbPath, readonly: true })
  const direct = new Database(dbPath, { readonly: true })
  afterAll(() => {
    direct.close()
    reader.close()
    writer.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })
  const counted = () => (direct.prepare('SELECT COUNT(*) AS n FROM chunks').get() as { n: number }).n

  it('is the number of chunks stored, through files added, shrunk and deleted', async () => {
    expect(reader.corpusStats().rows).toBe(0)
    const steps: [string, string | null][] = [
      ['memory/a.md', '## one\nwalrus tusk\n\n## two\nwalrus snow\n\n## three\npenguin'],
      ['memory/b.md', '## four\npenguin walrus'],
      ['memory/a.md', '## one\nwalrus only'],
      ['memory/b.md', null],
    ]
    const seen: number[] = []
    for (const [i, [rel, text]] of steps.entries()) {
      if (text === null) writer.transaction((r) => r.deleteFile(rel, i + 1))
      else {
        const file = await prepared(rel, text, i + 1)
        writer.transaction((r) => r.replaceFile(file.record, file.chunks))
      }
      seen.push(reader.corpusStats().rows)
      expect(reader.corpusStats().rows).toBe(counted())
    }
    expect(seen).toEqual([3, 4, 2, 1])
  })
})

describe("an index's chunks version", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-index-store-'))
  const dbPath = path.join(dir, 'index.sqlite')
  const writer = createIndexStore({ dbPath })
  const direct = new Database(dbPath, { readonly: true })
  afterAll(() => {
    direct.close()
    writer.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })
  const version = () =>
    Number(
      (
        direct.prepare(`SELECT value FROM meta WHERE key = '${CHUNKS_VERSION_KEY}'`).get() as
          { value: string } | undefined
      )?.value ?? 0,
    )
  const dataVersion = () => direct.pragma('data_version', { simple: true }) as number

  it('moves with every write of chunk rows, and not with the commits of the upkeep', async () => {
    const steps = { between: async () => undefined }
    const seen = [version()]
    const a = await prepared('memory/a.md', '## one\nwalrus tusk\n\n## two\nwalrus snow')
    await writer.applyChanges({ replace: [a] }, steps)
    seen.push(version())
    const b = await prepared('memory/b.md', '## three\npenguin walrus', 2)
    await writer.applyChanges({ replace: [b] }, steps)
    seen.push(version())

    const before = dataVersion()
    // The FTS5 merge after a sync: all of the index was written since the last one.
    await writer.compact(steps)
    expect(dataVersion()).not.toBe(before)
    seen.push(version())

    await writer.applyChanges({ remove: [{ path: 'memory/a.md', readSeq: 3 }] }, steps)
    seen.push(version())
    expect(seen[0]).toBe(0)
    expect(seen[1]).toBeGreaterThan(seen[0] as number)
    expect(seen[2]).toBeGreaterThan(seen[1] as number)
    expect(seen[3]).toBe(seen[2])
    expect(seen[4]).toBeGreaterThan(seen[3] as number)
  })
})

describe('replacing a file', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-index-store-'))
  const writer = createIndexStore({ dbPath: path.join(dir, 'index.sqlite') })
  afterAll(() => {
    writer.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it('keeps one row per chunk when the file holds equal chunks (pieces of a repetitive line)', async () => {
    const text = `${'walrus tusk '.repeat(400)}\n## penguin\nsnow\n`
    for (const readSeq of [1, 2, 3]) {
      const file = await prepared('memory/long.md', text, readSeq)
      const pieces = new Set(file.chunks.map((c) => `${c.startLine}:${c.endLine}:${c.contentHash}`))
      expect(pieces.size).toBeLessThan(file.chunks.length)
      writer.transaction((r) => r.replaceFile(file.record, file.chunks))
      expect(writer.corpusStats().rows).toBe(file.chunks.length)
    }
  })
})

/**
 * A writer whose checkpoints run at once on another connection, as the search workers run
 * them, counted; `fill` commits 60 copies of a big file, each in its own transaction.
 */
function checkpointedWriter() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-index-store-'))
  const dbPath = path.join(dir, 'index.sqlite')
  const counted = { checkpoints: 0 }
  const writer = createIndexStore({
    dbPath,
    checkpoint: async (p) => {
      counted.checkpoints++
      return checkpointWal(p)
    },
  })
  afterAll(() => {
    writer.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })
  const commits = 60
  async function fill(): Promise<void> {
    const words = Array.from({ length: 4_000 }, (_, i) => `walrus${i % 997} penguin${i % 89} snow`).join('\n')
    const file = await prepared('memory/big.md', words)
    for (let i = 0; i < commits; i++) {
      writer.transaction((r) => r.replaceFile({ ...file.record, path: `memory/big-${i}.md` }, file.chunks))
      await new Promise((resolve) => setImmediate(resolve))
    }
  }
  return { dbPath, counted, commits, fill }
}

describe('the log of an index checkpointed elsewhere', () => {
  const w = checkpointedWriter()

  it('is checkpointed once per limit of what commits add, not after every commit once its file is that big', async () => {
    await w.fill()
    // The log's limit is 4 MiB at most (volume-room.ts): what was written asked for a few.
    expect(fs.statSync(w.dbPath).size).toBeGreaterThan(3 * 4 * 1024 * 1024)
    expect(w.counted.checkpoints).toBeGreaterThanOrEqual(2)
    expect(w.counted.checkpoints).toBeLessThan(w.commits / 5)
  })
})

describe('the log of an index a reader holds', () => {
  const w = checkpointedWriter()

  it('is not asked for a checkpoint after every commit while the reader keeps it from completing', async () => {
    // Another process's read transaction (a backup, a sqlite3 shell): no checkpoint can copy
    // what was committed after it began.
    const reader = new Database(w.dbPath, { readonly: true })
    reader.exec('BEGIN')
    reader.prepare('SELECT count(*) FROM files').get()
    try {
      await w.fill()
    } finally {
      reader.exec('COMMIT')
      reader.close()
    }
    expect(fs.statSync(`${w.dbPath}-wal`).size).toBeGreaterThan(3 * 4 * 1024 * 1024)
    expect(w.counted.checkpoints).toBeGreaterThanOrEqual(2)
    expect(w.counted.checkpoints).toBeLessThan(w.commits / 5)
  })
})

describe('compacting after a sync pass', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-index-store-'))
  const dbPath = path.join(dir, 'index.sqlite')
  const writer = createIndexStore({ dbPath })
  const raw = new Database(dbPath, { readonly: true })
  afterAll(() => {
    raw.close()
    writer.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })
  const segments = () =>
    raw.prepare<[], { n: number }>('SELECT COUNT(DISTINCT segid) AS n FROM chunks_fts_idx').get()?.n
  const steps = { between: async () => undefined }
  const ranked = () =>
    writer.candidates({ terms: TERMS, limit: 50, headingWeight: 2 }).map((r) => [r.id, r.rank, r.bodyTerms])

  it('merges the FTS5 index into one segment once half of it was written, ranking as before', async () => {
    // Each file in its own transaction: FTS5 adds a segment per commit and merges only
    // segments of one level (four of them by default).
    for (let i = 0; i < 30; i++) {
      const file = await prepared(`memory/note-${i}.md`, `## note ${i}\nwalrus ${'penguin '.repeat(i % 7)}snow ${i}`)
      await writer.applyChanges({ replace: [file] }, steps)
    }
    expect(segments()).toBeGreaterThan(2)
    const before = ranked()

    await writer.compact(steps)

    expect(segments()).toBe(1)
    expect(ranked()).toEqual(before)
  })

  it('leaves the index as it is after writes of less than half of it', async () => {
    const file = await prepared('memory/one-more.md', 'walrus again')
    await writer.applyChanges({ replace: [file] }, steps)
    const after = segments()
    await writer.compact(steps)
    expect(segments()).toBe(after)
    expect(after).toBe(2)
  })
})

describe('compacting after a restart', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-index-store-'))
  const dbPath = path.join(dir, 'index.sqlite')
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
  const steps = { between: async () => undefined }

  it('merges what a service wrote before it stopped', async () => {
    const before = createIndexStore({ dbPath })
    for (let i = 0; i < 12; i++) {
      await before.applyChanges({ replace: [await prepared(`memory/n-${i}.md`, `walrus ${i}`)] }, steps)
    }
    before.close()
    const after = createIndexStore({ dbPath })
    const raw = new Database(dbPath, { readonly: true })
    const segments = () =>
      raw.prepare<[], { n: number }>('SELECT COUNT(DISTINCT segid) AS n FROM chunks_fts_idx').get()?.n
    try {
      expect(segments()).toBeGreaterThan(1)
      await after.compact(steps)
      expect(segments()).toBe(1)
    } finally {
      raw.close()
      after.close()
    }
  })
})
