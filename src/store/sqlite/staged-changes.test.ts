import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { ChunkInput, FileRecord } from '../../domain/chunks.js'
import { openDatabase, type Db } from './database.js'
import { createIndexStore, type IndexStore } from './index-store.js'
import type { StepOptions } from '../port.js'
import { MARKS_PER_TRANSACTION, QUIET_TERMS_PER_TRANSACTION, TERMS_PER_TRANSACTION } from './staged-changes.js'

const dirs: string[] = []
const closers: (() => void)[] = []
afterEach(() => {
  for (const close of closers.splice(0)) close()
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

function open(dir?: string): { store: IndexStore; dir: string; db: Db } {
  const at = dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-staged-'))
  if (!dir) dirs.push(at)
  const dbPath = path.join(at, 'index.sqlite')
  const store = createIndexStore({ dbPath })
  // A second connection sees what readers see: committed transactions only.
  const db = openDatabase(dbPath, { readonly: true })
  closers.push(() => {
    db.close()
    store.close()
  })
  return { store, dir: at, db }
}

/** Terms each test chunk counts as (its BM25 length, what writing it costs). */
const CHUNK_TERMS = 100
/** Chunks whose terms fill one transaction. */
const PER_TRANSACTION = TERMS_PER_TRANSACTION / CHUNK_TERMS

/** `count` chunks of version `version`: each holds the word `shared` and the version's word. */
function version(
  rel: string,
  word: string,
  count: number,
  readSeq: number,
): { record: FileRecord; chunks: ChunkInput[] } {
  const chunks = Array.from({ length: count }, (_, i) => ({
    startLine: i + 1,
    endLine: i + 1,
    text: `shared ${word} ${i}`,
    headings: '',
    contentHash: `${word}-${i}`,
    bodyTerms: `shared ${word} n${i}`,
    headingTerms: '',
    tokenCount: CHUNK_TERMS,
    datedMs: null,
    entry: null,
  }))
  const record: FileRecord = {
    path: rel,
    source: 'memory',
    sha256: word,
    sizeBytes: count * 10,
    mtimeMs: 1,
    lineCount: count,
    chunkCount: count,
    indexedAtMs: 1,
    readSeq,
  }
  return { record, chunks }
}

/** The words of the chunks a reader can find for `shared`, and how many of each. */
function visibleWords(store: IndexStore): Map<string, number> {
  const rows = store.candidates({ terms: ['shared'], limit: 100_000, headingWeight: 1 })
  const words = new Map<string, number>()
  for (const r of rows) {
    const word = (r.bodyTerms ?? '').split(' ')[1] as string
    words.set(word, (words.get(word) ?? 0) + 1)
  }
  return words
}

const rowCounts = (db: Db) =>
  db.prepare<[], { all: number; dead: number }>('SELECT COUNT(*) AS "all", COUNT(dead) AS dead FROM chunks').get() as {
    all: number
    dead: number
  }

const steps = (between: () => void | Promise<void> = () => undefined): StepOptions => ({
  between: async () => {
    await between()
  },
})

describe('staged changes', () => {
  it('writes a big file in short transactions, and readers see the old version or the new one, never a mix', async () => {
    const { store, db } = open()
    const reader = createIndexStore({ dbPath: store.dbPath, readonly: true })
    closers.push(() => reader.close())
    const n = 20 * PER_TRANSACTION
    await store.applyChanges({ replace: [version('memory/big.md', 'alpha', n, 1)] }, steps())
    expect(visibleWords(reader)).toEqual(new Map([['alpha', n]]))

    const seen: string[] = []
    let steps_ = 0
    let before = rowCounts(db)
    await store.applyChanges(
      { replace: [version('memory/big.md', 'beta', n, 2)] },
      steps(() => {
        steps_++
        const now = rowCounts(db)
        // No transaction inserts or deletes more chunks than fill its terms, or marks more than a batch.
        expect(Math.abs(now.all - before.all)).toBeLessThanOrEqual(PER_TRANSACTION)
        expect(Math.abs(now.dead - before.dead)).toBeLessThanOrEqual(Math.max(PER_TRANSACTION, MARKS_PER_TRANSACTION))
        before = now
        seen.push(JSON.stringify([...visibleWords(reader)]))
      }),
    )
    // Inserting n and deleting n chunks takes at least 2n / batch transactions.
    expect(steps_).toBeGreaterThanOrEqual((2 * n) / PER_TRANSACTION)
    expect(new Set(seen)).toEqual(new Set([JSON.stringify([['alpha', n]]), JSON.stringify([['beta', n]])]))
    expect(visibleWords(reader)).toEqual(new Map([['beta', n]]))
    expect(rowCounts(db)).toEqual({ all: n, dead: 0 })
    expect(store.getFile('memory/big.md')?.sha256).toBe('beta')
  })

  it('writes longer transactions while searches are quiet, and short ones again once one comes', async () => {
    const { store, db } = open()
    const perQuiet = QUIET_TERMS_PER_TRANSACTION / CHUNK_TERMS
    const n = 4 * perQuiet
    let quiet = true
    const inserted: number[] = []
    let before = rowCounts(db).all
    await store.applyChanges(
      { replace: [version('memory/big.md', 'alpha', n, 1)] },
      {
        ...steps(() => {
          const now = rowCounts(db).all
          if (now > before) inserted.push(now - before)
          before = now
          // A search comes after the second batch of chunks.
          if (inserted.length === 2) quiet = false
        }),
        quiet: () => quiet,
      },
    )
    expect(inserted.slice(0, 2)).toEqual([perQuiet, perQuiet])
    expect(inserted.slice(2).every((k) => k <= PER_TRANSACTION)).toBe(true)
    expect(inserted.reduce((a, b) => a + b, 0)).toBe(n)

    // Files too big for a short transaction share a quiet one instead of being staged.
    const files = Array.from({ length: 4 }, (_, i) => version(`memory/f${i}.md`, 'beta', 2 * PER_TRANSACTION, 2))
    let transactions = 0
    await store.applyChanges({ replace: files }, { ...steps(() => void transactions++), quiet: () => true })
    expect(transactions).toBe(1)
    expect(visibleWords(store).get('beta')).toBe(4 * 2 * PER_TRANSACTION)
  })

  it('deletes a big file at once for readers and its rows in short transactions', async () => {
    const { store, db } = open()
    const n = 10 * PER_TRANSACTION
    await store.applyChanges({ replace: [version('memory/big.md', 'alpha', n, 1)] }, steps())
    const seen: number[] = []
    await store.applyChanges(
      { remove: [{ path: 'memory/big.md', readSeq: 2 }] },
      steps(() => void seen.push(visibleWords(store).get('alpha') ?? 0)),
    )
    expect(seen.length).toBeGreaterThanOrEqual(n / PER_TRANSACTION)
    // The whole file until the deletion's first transaction, then nothing of it.
    const firstGone = seen.indexOf(0)
    expect(firstGone).toBeGreaterThanOrEqual(0)
    expect(seen.slice(0, firstGone).every((v) => v === n)).toBe(true)
    expect(seen.slice(firstGone).every((v) => v === 0)).toBe(true)
    expect(store.getFile('memory/big.md')).toBeUndefined()
    expect(rowCounts(db)).toEqual({ all: 0, dead: 0 })
  })

  it('undoes a staged change that a newer read overtook, leaving the newer state', async () => {
    const { store, db } = open()
    const n = 4 * PER_TRANSACTION
    const v1 = version('memory/big.md', 'alpha', n, 1)
    await store.applyChanges({ replace: [v1] }, steps())
    let touched = false
    await store.applyChanges(
      { replace: [version('memory/big.md', 'beta', n, 2)] },
      steps(() => {
        // The file went back to its first content, read later: a metadata refresh of it.
        if (touched) return
        touched = true
        store.transaction((repo) => repo.touchFile({ ...v1.record, readSeq: 3, mtimeMs: 2 }))
      }),
    )
    expect(visibleWords(store)).toEqual(new Map([['alpha', n]]))
    expect(store.getFile('memory/big.md')).toMatchObject({ sha256: 'alpha', readSeq: 3 })
    expect(rowCounts(db)).toEqual({ all: n, dead: 0 })
  })

  it('waits for a staged change of the same path, then applies the newer one', async () => {
    const { store } = open()
    const n = 4 * PER_TRANSACTION
    const big = store.applyChanges({ replace: [version('memory/big.md', 'alpha', n, 1)] }, steps())
    const small = store.applyChanges({ replace: [version('memory/big.md', 'beta', 3, 2)] }, steps())
    expect(store.isSettled()).toBe(false)
    await Promise.all([big, small])
    expect(store.isSettled()).toBe(true)
    expect(visibleWords(store)).toEqual(new Map([['beta', 3]]))
  })

  it('settles a change cut off by a process that died when the index opens again', async () => {
    const first = open()
    const n = 4 * PER_TRANSACTION
    await first.store.applyChanges({ replace: [version('memory/big.md', 'alpha', n, 1)] }, steps())
    // Cut off half-way, as a shutdown does: the staging row and half the new rows stay.
    const controller = new AbortController()
    let batches = 0
    await expect(
      first.store.applyChanges(
        { replace: [version('memory/big.md', 'beta', n, 2)] },
        {
          between: async () => {
            if (++batches === 2) controller.abort()
          },
          signal: controller.signal,
        },
      ),
    ).rejects.toThrow()
    expect(rowCounts(first.db).all).toBeGreaterThan(n)
    expect(visibleWords(first.store)).toEqual(new Map([['alpha', n]]))
    for (const close of closers.splice(0)) close()

    const again = open(first.dir)
    await expect(again.store.recovered).resolves.toBe(1)
    expect(visibleWords(again.store)).toEqual(new Map([['alpha', n]]))
    expect(rowCounts(again.db)).toEqual({ all: n, dead: 0 })
    await again.store.applyChanges({ replace: [version('memory/big.md', 'gamma', n, 3)] }, steps())
    expect(visibleWords(again.store)).toEqual(new Map([['gamma', n]]))
  })

  it("keeps a rebuild's scratch index merged while a big file is written in many commits", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-staged-'))
    dirs.push(dir)
    const dbPath = path.join(dir, 'index.sqlite')
    const store = createIndexStore({ dbPath, scratch: true })
    const db = openDatabase(dbPath, { readonly: true })
    closers.push(() => {
      db.close()
      store.close()
    })
    // Every commit adds an FTS5 segment; a scratch index does not merge them by itself, so
    // without a merge step per commit this file would leave about 40 of them.
    const commits = 40
    await store.applyChanges({ replace: [version('memory/big.md', 'alpha', commits * PER_TRANSACTION, 1)] }, steps())
    const segments = db.prepare<[], { n: number }>('SELECT COUNT(DISTINCT segid) AS n FROM chunks_fts_idx').get()?.n
    expect(segments).toBeGreaterThan(0)
    expect(segments).toBeLessThan(commits / 4)
  })
})
