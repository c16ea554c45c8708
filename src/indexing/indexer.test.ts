import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pino } from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { waitFor } from '../../test/helpers/wait-for.js'
import { createMemoryPaths } from '../files/memory-paths.js'
import { createTurns } from '../shared/async.js'
import { createForeground } from '../shared/foreground.js'
import type { FileChanges, SpaceWriter } from '../store/port.js'
import { createIndexer, type IndexerDeps } from './indexer.js'
import { createPrepareCache } from './prepare-file.js'
import type { PrepareElsewhere } from './read-there.js'
import type { Vectorizer, VectorizeResult } from './vectorizer.js'
import { createWriteTargets } from './write-targets.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

/** A workspace of `files` day files of one short note each. */
function workspace(files: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-indexer-'))
  dirs.push(dir)
  fs.mkdirSync(path.join(dir, 'memory'))
  for (let i = 0; i < files; i++) {
    fs.writeFileSync(
      path.join(dir, 'memory', `2026-01-${String(i + 1).padStart(2, '0')}.md`),
      `# Day ${i}\n\nnote ${i}\n`,
    )
  }
  return dir
}

/**
 * A store whose writes wait on a server (overlapsWrites), one chunk per batch: each write
 * is held until the test lets it go, and the log says what happened in which order.
 */
function slowStore(opts: { failWrite?: number } = {}) {
  const log: string[] = []
  const held: (() => void)[] = []
  let writes = 0
  let inFlight = 0
  let mostInFlight = 0
  const store: SpaceWriter = {
    batchChunks: 1,
    overlapsWrites: true,
    async applyChanges(changes: FileChanges) {
      const n = ++writes
      const paths = [...(changes.replace ?? []).map((r) => r.record.path), ...(changes.remove ?? []).map((r) => r.path)]
      log.push(`start ${n} ${paths.join(',')}`)
      inFlight++
      mostInFlight = Math.max(mostInFlight, inFlight)
      await new Promise<void>((resolve) => held.push(resolve))
      inFlight--
      if (n === opts.failWrite) throw new Error('connection lost')
      log.push(`end ${n}`)
    },
    putVectors: () => undefined,
    setMeta: () => undefined,
    storesVectors: () => false,
    listFiles: () => [],
    getFile: () => undefined,
    pendingVectors: () => [],
    pendingVectorCount: () => 0,
  }
  /**
   * Lets held writes finish, one at a time, until the pass ends: each once `ready(log)`
   * says so (the pass got as far as the test wants while it was held), or after 2 s when it
   * never does (the log then shows how far the pass got).
   */
  const drain = async (done: Promise<unknown>, ready: (log: readonly string[]) => boolean = () => true) => {
    let finished = false
    void done.finally(() => (finished = true)).catch(() => undefined)
    let heldSince = Date.now()
    while (!finished) {
      if (held.length > 0 && (ready(log) || Date.now() - heldSince > 2_000)) {
        held.shift()?.()
        heldSince = Date.now()
      }
      await new Promise((r) => setTimeout(r, 1))
    }
  }
  return { store, log, drain, mostInFlight: () => mostInFlight }
}

/** An indexer over `dir` writing to `store`; each read number it takes is logged as `read`. */
function indexerOf(
  dir: string,
  store: SpaceWriter,
  log: string[],
  vectorizer: Pick<Vectorizer, 'vectorize'> | null = null,
  prepareElsewhere?: PrepareElsewhere,
  extra: Partial<IndexerDeps> = {},
) {
  let seq = 0
  return createIndexer({
    live: store,
    targets: createWriteTargets(store),
    readSeq: {
      next: () => {
        log.push('read')
        return ++seq
      },
    },
    foreground: createForeground(),
    indexing: createForeground(),
    vectorizer: () => vectorizer,
    roots: { workspace: dir, sessions: null, paths: createMemoryPaths({ extraPaths: [] }) },
    prepareCache: createPrepareCache({ chunks: 100, termChars: 100_000, files: 10, fileChars: 100_000 }),
    chunking: { maxTokens: 400, overlapTokens: 80 },
    maxFileBytes: 1_000_000,
    turns: createTurns(),
    log: pino({ level: 'silent' }),
    prepareElsewhere,
    ...extra,
  })
}

describe('a sync pass over a store that overlaps writes', () => {
  it('prepares the next batch while one is written, keeps one write in flight and lands them in order', async () => {
    const dir = workspace(3)
    const { store, log, drain, mostInFlight } = slowStore()
    const done = indexerOf(dir, store, log).sync({ full: true, reason: 'test' })
    // A write is let go once the next file's read began while it was held (the last file's
    // write, and the deletions', at once): what is tested is that the read does not wait.
    await drain(done, (lines) => {
      const start = lines.findLastIndex((line) => line.startsWith('start'))
      return Number(lines[start]?.split(' ')[1]) >= 3 || lines.slice(start).includes('read')
    })
    const result = await done
    expect(result.indexed).toBe(3)
    expect(mostInFlight()).toBe(1)
    // The scan's read number, then each file's: the next file is read while the last one is
    // written; every write ends before the next starts; the deletions come last.
    expect(log).toEqual([
      'read',
      'read',
      'start 1 memory/2026-01-01.md',
      'read',
      'end 1',
      'start 2 memory/2026-01-02.md',
      'read',
      'end 2',
      'start 3 memory/2026-01-03.md',
      'end 3',
      'start 4 ',
      'end 4',
    ])
  })

  it('fails the pass when a write in flight fails, and leaves no write running', async () => {
    const dir = workspace(3)
    const { store, log, drain } = slowStore({ failWrite: 2 })
    const done = indexerOf(dir, store, log).sync({ full: true, reason: 'test' })
    await drain(done)
    await expect(done).rejects.toThrow('connection lost')
    expect(log.filter((line) => line !== 'read')).toEqual([
      'start 1 memory/2026-01-01.md',
      'end 1',
      'start 2 memory/2026-01-02.md',
    ])
  })
})

describe('a sync pass that prepares files elsewhere', () => {
  /** Day files of about 6 KB each: big enough to be prepared elsewhere (prepare-file.ts). */
  function bigWorkspace(files: number): string {
    const dir = workspace(0)
    for (let i = 0; i < files; i++) {
      const notes = Array.from({ length: 120 }, (_, n) => `- ${n}: deployed canary ${i}-${n} to staging 部署`).join(
        '\n',
      )
      const name = `2026-02-${String(i + 1).padStart(2, '0')}.md`
      fs.writeFileSync(path.join(dir, 'memory', name), `# Day ${i}\n\n${notes}\n`)
    }
    return dir
  }

  it('prepares files ahead while one is written, one write at a time, with the rows a pass here writes', async () => {
    const dir = bigWorkspace(12)
    const { store: slow, log, drain, mostInFlight } = slowStore()
    const written: FileChanges[] = []
    // A store like SQLite's: writes on this thread, one file per batch.
    const store: SpaceWriter = {
      ...slow,
      overlapsWrites: false,
      applyChanges: (changes, steps) => {
        written.push(changes)
        return slow.applyChanges(changes, steps)
      },
    }
    const elsewhere: PrepareElsewhere = async (input, local) => {
      log.push(`prepare ${input.file.rel}`)
      return local()
    }
    const done = indexerOf(dir, store, log, null, elsewhere).sync({ full: true, reason: 'test' })
    const first = 'start 1 memory/2026-02-01.md'
    const prepared = (lines: readonly string[]) => lines.filter((line) => line.startsWith('prepare')).length
    const readWhileFirstWritten = (lines: readonly string[]) =>
      lines.includes(first) && lines.slice(lines.indexOf(first)).includes('read')
    // The first write is held until four files are prepared and another file was begun
    // meanwhile (or 2 s): the pass goes on while one file is written, and begins more than
    // the next one.
    await drain(done, (lines) => lines.includes('end 1') || (prepared(lines) >= 4 && readWhileFirstWritten(lines)))
    const result = await done
    expect(result.indexed).toBe(12)
    expect(mostInFlight()).toBe(1)
    const untilFirstWritten = log.slice(0, log.indexOf('end 1'))
    expect(prepared(untilFirstWritten)).toBeGreaterThanOrEqual(4)
    expect(readWhileFirstWritten(untilFirstWritten)).toBe(true)
    expect(log.filter((line) => line.startsWith('prepare'))).toHaveLength(12)
    expect(log.filter((line) => line.startsWith('start')).map((line) => line.split(' ')[2])).toEqual([
      ...Array.from({ length: 12 }, (_, i) => `memory/2026-02-${String(i + 1).padStart(2, '0')}.md`),
      // the deletions
      '',
    ])

    const here: FileChanges[] = []
    await indexerOf(dir, { ...slow, overlapsWrites: false, applyChanges: async (c) => void here.push(c) }, []).sync({
      full: true,
      reason: 'test',
    })
    const rows = (changes: FileChanges[]) =>
      changes
        .flatMap((c) => c.replace ?? [])
        .map((r) => ({ path: r.record.path, sha256: r.record.sha256, chunks: r.chunks }))
    expect(rows(written)).toEqual(rows(here))
  })
  it("prepares elsewhere as background work for a pass nobody waits for, in turn for one a request waits for, not for a write's own", async () => {
    const dir = bigWorkspace(1)
    const seen: string[] = []
    const elsewhere: PrepareElsewhere = async (_input, local, background) => {
      seen.push(background ? 'background' : 'waited for')
      return local()
    }
    const store: SpaceWriter = { ...slowStore().store, overlapsWrites: false, applyChanges: async () => undefined }
    // A new indexer each time: one that prepared the file has its checkpoint and resumes here.
    const indexer = () => indexerOf(dir, store, [], null, elsewhere)
    await indexer().sync({ full: true, reason: 'sync' })
    await indexer().sync({ full: true, reason: 'first sync a request waits for', urgent: true })
    await indexer().syncPaths(['memory/2026-02-01.md'], 'a write')
    expect(seen).toEqual(['background', 'waited for'])
  })

  it('begins big files ahead only up to about a megabyte in all, the next one always', async () => {
    const dir = workspace(0)
    const note = `- deployed canary to staging ${'x'.repeat(80)}\n`
    for (let i = 1; i <= 3; i++) fs.writeFileSync(path.join(dir, 'memory', `2026-03-0${i}.md`), note.repeat(6_000))
    const log: string[] = []
    const store: SpaceWriter = {
      ...slowStore().store,
      overlapsWrites: false,
      applyChanges: async (changes) => void log.push(`write ${changes.replace?.[0]?.record.path ?? ''}`),
    }
    const elsewhere: PrepareElsewhere = async (input, local) => {
      log.push(`prepare ${input.file.rel}`)
      return local()
    }
    await indexerOf(dir, store, [], null, elsewhere).sync({ full: true, reason: 'test' })
    // Files of 0.7 MB: the first and the next begun before the first write (their reads end
    // in either order), not the third.
    const firstWrite = log.indexOf('write memory/2026-03-01.md')
    expect(log.slice(0, firstWrite).sort()).toEqual(['prepare memory/2026-03-01.md', 'prepare memory/2026-03-02.md'])
  })

  it('prepares and writes nothing more once cancelled, though files were begun ahead', async () => {
    const dir = bigWorkspace(12)
    const log: string[] = []
    const store: SpaceWriter = {
      ...slowStore().store,
      overlapsWrites: false,
      applyChanges: async (changes) => void log.push(`write ${changes.replace?.[0]?.record.path ?? ''}`),
    }
    const cancel = new AbortController()
    const elsewhere: PrepareElsewhere = async (input, local) => {
      log.push(`prepare ${input.file.rel}`)
      // Shut down while the first file is prepared: the others begun ahead are still read.
      cancel.abort()
      return local()
    }
    let reads = 0
    const reclaimer = { worked: () => void reads++, hold: () => () => undefined }
    const done = indexerOf(dir, store, [], null, elsewhere, { reclaimer }).sync({
      full: true,
      reason: 'test',
      signal: cancel.signal,
    })
    await expect(done).rejects.toThrow(/abort/i)
    // Every file begun (the first and 8 ahead) was read; a preparation would follow at once.
    await waitFor(() => reads === 9 || undefined)
    await new Promise((resolve) => setImmediate(resolve))
    // The one under way when it was cancelled (any of them: their reads end in any order).
    expect(log).toHaveLength(1)
    expect(log[0]).toMatch(/^prepare /)
  })
})

describe('a file that grew since its last pass', () => {
  it('reaches the store with the vectors of this pass only: prepared chunks kept for the next append hold none', async () => {
    const dir = workspace(0)
    const file = path.join(dir, 'memory', '2026-01-01.md')
    const entries = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, i) => `## 09:00:0${from + i}\n- note ${from + i}\n`).join('')
    fs.writeFileSync(file, entries(0, 4))
    const vectorsSeen: (Float32Array | undefined)[][] = []
    const store: SpaceWriter = {
      ...slowStore().store,
      overlapsWrites: false,
      batchChunks: 1_000,
      storesVectors: () => true,
      async applyChanges(changes: FileChanges) {
        for (const r of changes.replace ?? []) vectorsSeen.push(r.chunks.map((c) => c.vector))
      },
    }
    let providerDown = false
    const vectorizer = {
      vectorize: async (items: readonly unknown[]): Promise<VectorizeResult> =>
        providerDown
          ? { vectors: items.map(() => undefined), embedded: 0, cacheHits: 0, tokens: 0, error: new Error('down') }
          : { vectors: items.map(() => new Float32Array([1, 0])), embedded: items.length, cacheHits: 0, tokens: 0 },
    }
    const indexer = indexerOf(dir, store, [], vectorizer)
    await indexer.sync({ full: true, reason: 'test' })
    fs.appendFileSync(file, entries(4, 6))
    providerDown = true
    await indexer.sync({ full: true, reason: 'test' })

    expect(vectorsSeen.map((v) => v.length)).toEqual([4, 6])
    expect(vectorsSeen[0]?.every((v) => v !== undefined)).toBe(true)
    // The provider is down: no chunk of the second pass has a vector, not even the four
    // prepared in the first (a vector kept from then could belong to another model).
    expect(vectorsSeen[1]?.every((v) => v === undefined)).toBe(true)
  })
})

describe('a sync pass while no search comes', () => {
  it("writes batches as big as the store's quiet transactions, and the usual ones while searches come", async () => {
    const dir = workspace(60)
    const pass = async (foreground: ReturnType<typeof createForeground>) => {
      const batches: { files: number; quiet: boolean | undefined }[] = []
      const store: SpaceWriter = {
        ...slowStore().store,
        overlapsWrites: false,
        batchChunks: undefined,
        async applyChanges(changes: FileChanges, steps) {
          const files = changes.replace?.length ?? 0
          if (files > 0) batches.push({ files, quiet: steps.quiet?.() })
        },
      }
      await indexerOf(dir, store, [], null, undefined, { foreground }).sync({ full: true, reason: 'test' })
      return batches
    }
    // One chunk per file: all 60 in one batch while no search comes.
    expect(await pass(createForeground())).toEqual([{ files: 60, quiet: true }])
    // A search just ended, on a clock that stands still: searches keep coming.
    const searching = createForeground(() => 0)
    searching.enter()()
    expect(await pass(searching)).toEqual([
      { files: 25, quiet: false },
      { files: 25, quiet: false },
      { files: 10, quiet: false },
    ])
  })

  it("writes the store's own quiet batches while no search comes, and its busy ones while searches come", async () => {
    const dir = workspace(60)
    const pass = async (foreground: ReturnType<typeof createForeground>) => {
      const batches: number[] = []
      const store: SpaceWriter = {
        ...slowStore().store,
        overlapsWrites: false,
        batchChunks: 20,
        quietBatchChunks: 50,
        async applyChanges(changes: FileChanges) {
          const files = changes.replace?.length ?? 0
          if (files > 0) batches.push(files)
        },
      }
      await indexerOf(dir, store, [], null, undefined, { foreground }).sync({ full: true, reason: 'test' })
      return batches
    }
    expect(await pass(createForeground())).toEqual([50, 10])
    const searching = createForeground(() => 0)
    searching.enter()()
    expect(await pass(searching)).toEqual([20, 20, 20])
  })
})

describe('the end of a sync pass', () => {
  it('asks the live index to compact once the sync answered, after its last write and removal', async () => {
    const dir = workspace(2)
    const log: string[] = []
    const store: SpaceWriter = {
      ...slowStore().store,
      overlapsWrites: false,
      applyChanges: async (changes, steps) => {
        const what = changes.remove ? `remove ${changes.remove.length}` : `write ${changes.replace?.length ?? 0}`
        log.push(steps.compactsAfter ? `${what}, compacted after` : what)
      },
      compact: async () => void log.push('compact'),
    }
    const indexer = indexerOf(dir, store, [])
    await indexer.sync({ full: true, reason: 'test' })
    log.push('answered')
    await indexer.compacted()
    // A write's own pass is not followed by a compaction, and tells its writes so.
    fs.appendFileSync(path.join(dir, 'memory', '2026-01-01.md'), '- one more note\n')
    await indexer.syncPaths(['memory/2026-01-01.md'], 'a write')
    await indexer.compacted()
    expect(log).toEqual([
      'write 1, compacted after',
      'write 1, compacted after',
      'remove 0, compacted after',
      'answered',
      'compact',
      'write 1',
      'remove 0',
    ])
  })
})

describe("the live index's compaction", () => {
  it('takes no step while index passes or writes are in progress, and each once they end', async () => {
    const dir = workspace(1)
    const log: string[] = []
    const gate = Promise.withResolvers<void>()
    // Index work in progress as the compaction sees it: busy until the test opens the gate.
    const indexing = {
      enter: () => {
        log.push('pass begins')
        return () => void log.push('pass ends')
      },
      whenIdle: (ms: number) => {
        log.push(`waits up to ${ms} ms`)
        return gate.promise
      },
    }
    const store: SpaceWriter = {
      ...slowStore().store,
      overlapsWrites: false,
      applyChanges: async () => undefined,
      compact: async (steps) => {
        for (let i = 0; i < 2; i++) {
          await steps.between()
          log.push(`step ${i}`)
        }
      },
    }
    const indexer = indexerOf(dir, store, [], null, undefined, { indexing })
    await indexer.sync({ full: true, reason: 'test' })
    await waitFor(() => log.includes('waits up to 100 ms'))
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(log.filter((line) => line.startsWith('step'))).toEqual([])
    expect(log[0]).toBe('pass begins')
    expect(log).toContain('pass ends')
    gate.resolve()
    await indexer.compacted()
    expect(log.slice(-4)).toEqual(['waits up to 100 ms', 'step 0', 'waits up to 100 ms', 'step 1'])
  })
})
