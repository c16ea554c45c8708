import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import type { ChunkInput, FileRecord } from '../../domain/chunks.js'
import type { StepOptions } from '../port.js'
import { createIndexStore } from './index-store.js'
import { TERMS_PER_TRANSACTION } from './staged-changes.js'

/** Lists (and so kept counts) for terms in 6 chunks or more, once the index has 12. */
const LISTS = { minDocFreq: 6, keep: 4, minRows: 12 }
const steps: StepOptions = { between: async () => undefined }

/** File `rel` at `readSeq`: a chunk per entry of `bodies` (its body terms), "walrus" in the headings of every third. */
function file(rel: string, bodies: readonly string[], readSeq: number): { record: FileRecord; chunks: ChunkInput[] } {
  const chunks = bodies.map((body, i) => ({
    startLine: i + 1,
    endLine: i + 1,
    text: body,
    headings: '',
    contentHash: `${rel}-${readSeq}-${i}`,
    bodyTerms: body,
    headingTerms: i % 3 === 0 ? 'walrus' : '',
    tokenCount: body.split(' ').length,
    datedMs: null,
    entry: null,
  }))
  const record: FileRecord = {
    path: rel,
    source: 'memory',
    sha256: `${rel}-${readSeq}`,
    sizeBytes: 1,
    mtimeMs: 1,
    lineCount: bodies.length,
    chunkCount: bodies.length,
    indexedAtMs: 1,
    readSeq,
  }
  return { record, chunks }
}

describe('the document counts the writer keeps', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-term-docs-'))
  const dbPath = path.join(dir, 'index.sqlite')
  const store = createIndexStore({ dbPath, impactLists: LISTS })
  const reader = createIndexStore({ dbPath, readonly: true, impactLists: LISTS })
  const db = new Database(dbPath, { readonly: true })
  afterAll(() => {
    db.close()
    reader.close()
    store.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })
  const kept = () =>
    db.prepare<[], { term: string; doc: number }>('SELECT term, doc FROM term_docs ORDER BY term').all()
  const counted = (term: string) =>
    db.prepare<[string], { doc: number }>('SELECT doc FROM chunks_vocab WHERE term = ?').get(term)?.doc ?? 0
  /** Every kept count is FTS5's own, and a reader's statistics give it. */
  function expectExact() {
    const rows = kept()
    expect(rows.length).toBeGreaterThan(0)
    for (const { term, doc } of rows) expect([term, doc]).toEqual([term, counted(term)])
    expect(reader.keywordStats(rows.map((r) => r.term)).docFreqs).toEqual(rows.map((r) => counted(r.term)))
  }

  it('keeps the counts of the terms that get lists, exact as files change, go, and are staged', async () => {
    const bodies = (n: number, extra = '') =>
      Array.from({ length: n }, (_, i) => `seal ${i % 2 ? 'walrus walrus' : 'ice'} floe${i} ${extra}`.trim())
    for (let f = 0; f < 6; f++) store.transaction((r) => r.replaceFile(...args(file(`memory/f${f}.md`, bodies(4), 1))))
    expect(kept()).toEqual([])
    await store.compact(steps)
    expect(kept().map((r) => r.term)).toEqual(expect.arrayContaining(['ice', 'seal', 'walrus']))
    expectExact()

    // A file shrinks and loses its common words; another gains them; one goes.
    store.transaction((r) => r.replaceFile(...args(file('memory/f0.md', ['otter'], 2))))
    store.transaction((r) => r.replaceFile(...args(file('memory/f1.md', bodies(7, 'ice'), 2))))
    store.transaction((r) => r.deleteFile('memory/f2.md', 2))
    expectExact()

    // A file too big for one transaction is staged over many, then replaced, then removed.
    const big = Math.ceil((3 * TERMS_PER_TRANSACTION) / 5)
    await store.applyChanges({ replace: [file('memory/big.md', bodies(big, 'walrus'), 3)] }, steps)
    expectExact()
    await store.applyChanges({ replace: [file('memory/big.md', bodies(big / 2, 'seal'), 4)] }, steps)
    expectExact()
    await store.applyChanges({ remove: [{ path: 'memory/big.md', readSeq: 5 }] }, steps)
    expectExact()
  })

  it('counts again for lists built before it kept counts', async () => {
    const writable = new Database(dbPath)
    writable.exec('DELETE FROM term_docs')
    writable.close()
    const reopened = createIndexStore({ dbPath, impactLists: LISTS })
    try {
      await reopened.compact(steps)
    } finally {
      reopened.close()
    }
    expectExact()
  })
})

/** replaceFile's arguments from a file's record and chunks. */
const args = (f: { record: FileRecord; chunks: ChunkInput[] }) => [f.record, f.chunks] as const
