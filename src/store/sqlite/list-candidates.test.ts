import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { prepareFile } from '../../indexing/prepare-file.js'
import { queryTerms } from '../../text/analyzer.js'
import type { KeywordQuery } from '../port.js'
import { ftsMatch } from './fts-match.js'
import { createIndexStore } from './index-store.js'
import { toParams } from './keyword-sql.js'
import { createListCandidates } from './list-candidates.js'

const CHUNKING = { maxTokens: 800, overlapTokens: 0 }
const slicer = { maybeYield: async () => undefined }
// A term of the vocabulary a step: the builds take many steps, as a big index's do.
const LISTS = { minDocFreq: 30, keep: 6, minRows: 60, vocabSliceMs: 0 }
const [WALRUS] = queryTerms('walrus') as [string]
const steps = { between: async () => undefined }

/**
 * File `n`'s three sections: one in three holds walrus (1–5 times, in its heading for some)
 * among 120–300 other words (about as long as chunks usually are); sections 26 apart are equal, so some ranks are equal.
 */
function note(n: number): string {
  const section = (k: number) => {
    const m = k % 26
    const walrus = m % 3 === 0 ? 1 + ((m * 7) % 5) : 0
    return `## ${m % 9 === 0 ? 'walrus' : 'seal'} ${m}\n${'walrus '.repeat(walrus)}${'ice floe '.repeat(60 + ((m * 11) % 7) * 15)}\n`
  }
  return [0, 1, 2].map((i) => section(3 * n + i)).join('\n')
}

async function write(store: ReturnType<typeof createIndexStore>, rel: string, text: string, readSeq: number) {
  const file = await prepareFile(
    { rel, text, sha256: `${rel}:${readSeq}`, sizeBytes: 1, mtimeMs: 0, indexedAtMs: 0, readSeq },
    CHUNKING,
    slicer,
  )
  store.transaction((r) => r.replaceFile(file.record, file.chunks))
}

describe('keyword candidates from an impact list', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-impact-'))
  const dbPath = path.join(dir, 'index.sqlite')
  const store = createIndexStore({ dbPath, impactLists: LISTS })
  const db = new Database(dbPath, { readonly: true })
  const fromList = createListCandidates(db, LISTS.keep)
  afterAll(() => {
    db.close()
    store.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  const query = (limit: number, filters: Partial<KeywordQuery> = {}): KeywordQuery => ({
    terms: [WALRUS],
    limit,
    headingWeight: 2,
    ...filters,
  })
  /** What FTS5 ranks for the query, every match scored (the search without lists). */
  const fullScan = (q: KeywordQuery) =>
    db
      .prepare<[{ match: string; prefix: string; limit: number }], { id: number; rank: number }>(
        `SELECT c.id, bm25(chunks_fts, 1.0, 2.0) AS rank FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
         WHERE chunks_fts MATCH @match AND substr(c.path, 1, length(@prefix)) = @prefix ORDER BY rank, c.id LIMIT @limit`,
      )
      .all({ match: ftsMatch(q.terms) as string, prefix: q.pathPrefix ?? '', limit: q.limit })
  const served = (q: KeywordQuery) => {
    const docFreq = store.keywordStats([WALRUS]).docFreqs[0] as number
    return db.transaction(() => fromList(q, toParams(q, ftsMatch(q.terms) as string), docFreq))()
  }
  /** The store's answers equal FTS5's, ranks to the last bit, and the list tells `listed` of them. */
  function expectExact(listed: number) {
    let fromLists = 0
    let ties = 0
    for (const limit of [1, 2, 3, 5, 8, 12]) {
      for (const filters of [{}, { pathPrefix: 'memory/b' }]) {
        const q = query(limit, filters)
        const got = store.candidates(q).map((r) => ({ id: r.id, rank: r.rank }))
        expect(got).toEqual(fullScan(q))
        ties += got.filter((r, i) => i > 0 && r.rank === got[i - 1]?.rank).length
        if (served(q) !== null) fromLists++
      }
    }
    expect(fromLists).toBeGreaterThanOrEqual(listed)
    // Equal ranks, ordered by id as FTS5 and SQLite order them.
    expect(ties).toBeGreaterThan(0)
  }

  it('gives the chunks and ranks FTS5 gives, for most queries from the list', async () => {
    for (let i = 0; i < 40; i++) await write(store, `memory/${i % 2 ? 'a' : 'b'}${i}.md`, note(i), 1)
    await store.compact(steps)
    expect(db.prepare('SELECT listed FROM impact_terms WHERE term = ?').get(WALRUS)).toEqual({ listed: 6 })
    expectExact(3)
  })

  it('stays exact as listed chunks change and are deleted, and new ones come', async () => {
    const top = served(query(3))?.map((r) => r.id) ?? []
    const paths = db
      .prepare<[string], { path: string }>(
        'SELECT DISTINCT path FROM chunks WHERE id IN (SELECT value FROM json_each(?))',
      )
      .all(JSON.stringify(top))
      .map((r) => r.path)
    expect(paths.length).toBeGreaterThan(0)
    // A listed chunk loses its term; another file holding listed chunks goes.
    await write(store, paths[0] as string, note(2).replaceAll('walrus', 'otter'), 2)
    if (paths[1]) store.transaction((r) => r.deleteFile(paths[1] as string, 2))
    expectExact(0)
    // New chunks (ids past the lists), better than the listed ones: read from FTS5, then listed.
    for (let i = 0; i < 4; i++) await write(store, `memory/b-new${i}.md`, `## walrus\n${'walrus '.repeat(6)}\n`, 3)
    expectExact(1)
    await store.compact(steps)
    expectExact(3)
  })

  it('never gives a new chunk an id a list covers, even after the newest chunks were deleted', async () => {
    const newest = () => (db.prepare('SELECT MAX(id) AS m FROM chunks').get() as { m: number }).m
    const before = newest()
    store.transaction((r) => r.deleteFile('memory/b-new3.md', 4))
    await write(store, 'memory/b-new4.md', 'walrus\n', 4)
    expect(newest()).toBeGreaterThan(before)
    expectExact(0)
  })
})
