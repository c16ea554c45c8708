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
import { createRareCandidates } from './rare-candidates.js'
import { LIST_UPTO } from './rare-lists.js'

const CHUNKING = { maxTokens: 800, overlapTokens: 0 }
const slicer = { maybeYield: async () => undefined }
const RARE = { maxDocFreq: 80, minRows: 20 }
const steps = { between: async () => undefined }

/** Words of the notes: `word(k)` for k from 0, rarer as k grows. */
const word = (k: number) => `z${String.fromCharCode(97 + (k % 26))}${String.fromCharCode(97 + Math.floor(k / 26))}lk`
const TERMS = Array.from({ length: 60 }, (_, k) => queryTerms(word(k))[0] as string)

/** A small deterministic generator (mulberry32), so every run writes the same notes. */
function random(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * File `n`'s three sections: 40–120 words each, word k drawn about 1/(k + 1) as often as
 * word 0, a word of the heading among them; sections repeat, so some ranks are equal.
 */
function note(n: number, seed = 1): string {
  const next = random(1000 * seed + (n % 23))
  const pick = () => Math.min(59, Math.floor(Math.exp(next() * Math.log(61)) - 1))
  const section = () => {
    const words = Array.from({ length: 40 + Math.floor(next() * 80) }, () => word(pick()))
    return `## ${word(pick())} notes\n${words.join(' ')}\n`
  }
  return [0, 1, 2].map(section).join('\n')
}

async function write(store: ReturnType<typeof createIndexStore>, rel: string, text: string, readSeq: number) {
  const file = await prepareFile(
    { rel, text, sha256: `${rel}:${readSeq}`, sizeBytes: 1, mtimeMs: 0, indexedAtMs: 0, readSeq },
    CHUNKING,
    slicer,
  )
  store.transaction((r) => r.replaceFile(file.record, file.chunks))
}

/** What FTS5 ranks for the query, every match scored (the search without lists). */
const fts5Ranking = (db: Database.Database, q: KeywordQuery) =>
  db
    .prepare<[{ match: string; prefix: string; limit: number }], { id: number; rank: number }>(
      `SELECT c.id, bm25(chunks_fts, 1.0, 2.0) AS rank FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
       WHERE chunks_fts MATCH @match AND substr(c.path, 1, length(@prefix)) = @prefix ORDER BY rank, c.id LIMIT @limit`,
    )
    .all({ match: ftsMatch(q.terms) as string, prefix: q.pathPrefix ?? '', limit: q.limit })

/** A store in a temp dir, a read-only connection to it, and its answer from the lists alone (null: FTS5's). */
function rareStore(prefix: string, rareLists: { maxDocFreq: number; minRows: number }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  const dbPath = path.join(dir, 'index.sqlite')
  const store = createIndexStore({ dbPath, rareLists })
  const db = new Database(dbPath, { readonly: true })
  const fromRare = createRareCandidates(db)
  afterAll(() => {
    db.close()
    store.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })
  const served = (q: KeywordQuery) => {
    const docFreq = (term: string) => store.keywordStats([term]).docFreqs[0] as number
    return db.transaction(() => fromRare(q, toParams(q, ftsMatch(q.terms) as string), docFreq))()
  }
  return { store, db, served }
}

describe('keyword candidates from rare lists', () => {
  const { store, db, served } = rareStore('mnemo-rare-', RARE)

  /** Queries of 1 to 5 of the rarer words (36 on), some with the most common one. */
  const queries = (() => {
    const next = random(7)
    return Array.from({ length: 40 }, (_, i) => {
      const terms = new Set<string>()
      const size = 1 + (i % 5)
      while (terms.size < size)
        terms.add(TERMS[i % 4 === 0 && terms.size === 0 ? 0 : 36 + Math.floor(next() * 24)] as string)
      return [...terms]
    })
  })()
  const fullScan = (q: KeywordQuery) => fts5Ranking(db, q)
  /** The store's answers equal FTS5's, ranks to the last bit; returns how many came from the lists. */
  function expectExact(): number {
    let fromLists = 0
    let ties = 0
    for (const [i, terms] of queries.entries()) {
      const limit = [1, 3, 8, 24][i % 4] as number
      for (const filters of [{}, { pathPrefix: 'memory/b' }]) {
        const q: KeywordQuery = { terms, limit, headingWeight: 2, ...filters }
        const got = store.candidates(q).map((r) => ({ id: r.id, rank: r.rank }))
        expect(got).toEqual(fullScan(q))
        ties += got.filter((r, k) => k > 0 && r.rank === got[k - 1]?.rank).length
        if (served(q) !== null) fromLists++
      }
    }
    // Equal ranks, ordered by id as FTS5 and SQLite order them.
    expect(ties).toBeGreaterThan(0)
    return fromLists
  }

  it('gives the chunks and ranks FTS5 gives, most queries from the lists', async () => {
    for (let i = 0; i < 30; i++) await write(store, `memory/${i % 2 ? 'a' : 'b'}${i}.md`, note(i), 1)
    expect(db.prepare('SELECT COUNT(*) AS n FROM rare_postings').get()).toEqual({ n: 0 })
    expect(expectExact()).toBe(0)
    await store.compact(steps)
    const listed = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM rare_postings').get()?.n ?? 0
    expect(listed).toBeGreaterThan(20)
    // The most common word has no list; queries holding it are FTS5's.
    expect(db.prepare('SELECT 1 FROM rare_postings WHERE term = ?').get(TERMS[0])).toBeUndefined()
    expect(expectExact()).toBeGreaterThan(40)
  })

  it('stays exact as listed chunks change and are deleted, and new ones come, then extends the lists', async () => {
    await write(store, 'memory/b4.md', note(4, 2), 2)
    store.transaction((r) => r.deleteFile('memory/a5.md', 2))
    for (let i = 30; i < 34; i++) await write(store, `memory/b-new${i}.md`, note(i, 3), 3)
    expect(expectExact()).toBeGreaterThan(40)
    const upto = () => db.prepare<[], { m: number }>(`SELECT MIN(${LIST_UPTO}) AS m FROM rare_postings`).get()?.m
    const before = upto()
    await store.compact(steps)
    expect(upto()).toBeGreaterThan(before ?? Infinity)
    expect(expectExact()).toBeGreaterThan(40)
  })

  it('never gives a new chunk an id a list covers, even after the newest chunks were deleted', async () => {
    const newest = () => (db.prepare('SELECT MAX(id) AS m FROM chunks').get() as { m: number }).m
    const before = newest()
    store.transaction((r) => r.deleteFile('memory/b-new33.md', 4))
    await write(store, 'memory/b-new34.md', note(34, 4), 4)
    expect(newest()).toBeGreaterThan(before)
    expectExact()
  })

  it('builds the lists again, without the deleted chunks, when the index doubles', async () => {
    for (let i = 40; i < 80; i++) await write(store, `memory/c${i}.md`, note(i, 5), 5)
    await store.compact(steps)
    const stale = db
      .prepare(`SELECT COUNT(*) AS n FROM rare_postings WHERE ${LIST_UPTO} < (SELECT MAX(id) FROM chunks)`)
      .get() as { n: number }
    expect(stale.n).toBe(0)
    expect(expectExact()).toBeGreaterThan(20)
  })
})

describe('rare lists where FTS5 indexed a text otherwise than the analyzer wrote its terms', () => {
  const { store, db, served: servedQuery } = rareStore('mnemo-rare-folded-', { maxDocFreq: 80, minRows: 20 })
  const fullScan = (q: KeywordQuery) => fts5Ranking(db, q)
  const expectFts5 = (query: string) => {
    const q: KeywordQuery = { terms: queryTerms(query), limit: 10, headingWeight: 2 }
    const got = store.candidates(q).map((r) => ({ id: r.id, rank: r.rank }))
    expect(got.length).toBeGreaterThan(0)
    expect(got).toEqual(fullScan(q))
  }

  it('ranks as FTS5 does: lengths by FTS5, and chunks it tokenized otherwise left to it', async () => {
    // A CJK radical (U+2EC3, as PDF extraction gives 长) is Han to the analyzer, a separator to
    // FTS5; a final sigma FTS5 folds to σ, so "λόγοσ" finds "λόγος" there and not in the terms.
    for (let i = 0; i < 30; i++) {
      const extra = i < 3 ? ' 长城的历史 λόγοσ' : i === 3 ? ' ⻓城的历史' : ''
      await write(store, `memory/n${i}.md`, `## note ${i}\nfiller words number ${i}${extra}\n`, 1)
    }
    await store.compact(steps)
    expect(db.prepare('SELECT COUNT(*) AS n FROM rare_postings').get()).not.toEqual({ n: 0 })
    expectFts5('城')
    expectFts5('λόγοσ')
    // Written after the lists: a final sigma alone is counted as FTS5 folds it, in searches
    // and in the extension; a radical leaves its queries to FTS5 and the lists to a build.
    const served = (query: string) => servedQuery({ terms: queryTerms(query), limit: 10, headingWeight: 2 })
    await write(store, 'memory/new1.md', '## new\nο λόγος πάλι\n', 2)
    expectFts5('λόγοσ')
    expect(served('λόγοσ')).not.toBeNull()
    await store.compact(steps)
    expectFts5('λόγοσ')
    expect(served('λόγοσ')).not.toBeNull()
    await write(store, 'memory/new2.md', '## new\nτο ⻓城 και ο λόγος\n', 3)
    expectFts5('λόγοσ')
    expectFts5('城')
    expect(served('λόγοσ')).toBeNull()
    // The extension stops at the chunk it cannot count and leaves the lists to a new build.
    await store.compact(steps)
    expectFts5('λόγοσ')
    await store.compact(steps)
    expect(served('λόγοσ')).not.toBeNull()
    expectFts5('λόγοσ')
    expectFts5('城')
  })
})
