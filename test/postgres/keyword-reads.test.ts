import { pino } from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import type { ChunkInput } from '../../src/domain/chunks.js'
import type { FileRows, KeywordQuery, StepOptions } from '../../src/store/port.js'
import { createPool, tablesOf } from '../../src/store/postgres/database.js'
import { createNamedStatements } from '../../src/store/postgres/named-statements.js'
import { newestMatches } from '../../src/store/postgres/newest-matches.js'
import { createReaderOps } from '../../src/search/index-reader.js'
import { liveScope } from '../../src/store/postgres/read-sql.js'
import { databaseUrl, testPostgresEngine } from './pg-engine.js'

const STEPS: StepOptions = { between: async () => undefined }

/** Chunk `i`: `alpha` in every third chunk, `beta` in every chunk. */
function chunk(i: number): ChunkInput {
  const terms = [i % 3 === 0 ? 'alpha' : 'gamma', 'beta', `w${i}`].join(' ')
  return {
    startLine: i + 1,
    endLine: i + 1,
    text: `text ${i}`,
    headings: '',
    contentHash: `h${i}`,
    bodyTerms: terms,
    headingTerms: '',
    tokenCount: 3,
    datedMs: null,
    entry: null,
  }
}

function file(path: string, from: number, count: number): FileRows {
  const chunks = Array.from({ length: count }, (_, i) => chunk(from + i))
  const record = {
    path,
    source: 'memory' as const,
    sha256: path,
    sizeBytes: 1,
    mtimeMs: 1,
    lineCount: count,
    chunkCount: count,
    indexedAtMs: 1,
    readSeq: 1,
  }
  return { record, chunks }
}

const statements = createNamedStatements(pino({ level: 'silent' }))

describe('PostgreSQL keyword reads', () => {
  const cleanup: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn()
  })

  it('gives the newest matches whether the newest rows hold enough of them or the GIN index is asked', async () => {
    const under = await testPostgresEngine(null)
    cleanup.push(() => under.dispose())
    const store = await under.engine.openSpace({ kind: 'agent', id: 'main' })
    await store.applyChanges({ replace: [file('memory/a.md', 0, 30), file('notes/b.md', 30, 30)] }, STEPS)
    const pool = createPool({ url: databaseUrl(), max: 2, connectTimeoutMs: 10_000 })
    cleanup.push(() => pool.end())
    const t = tablesOf(under.schema)
    const scope = liveScope(t, 'agent:main')
    const cases: KeywordQuery[] = [
      { terms: ['alpha'], limit: 5, headingWeight: 2 },
      { terms: ['alpha', 'beta'], limit: 5, headingWeight: 2 },
      { terms: ['alpha'], limit: 5, headingWeight: 2, pathPrefix: 'memory/' },
      { terms: ['alpha'], limit: 25, headingWeight: 2 },
      { terms: ['absent'], limit: 5, headingWeight: 2 },
    ]
    for (const q of cases) {
      // Every match, from the ranked scan, newest first.
      const matches = await store.candidates({ ...q, limit: 100 })
      const wanted = matches
        .map((r) => r.id)
        .sort((a, b) => b - a)
        .slice(0, q.limit)
      // A window of 2 rows holds too few matches (the GIN index answers); 1,000 holds all.
      for (const window of [2, 1000]) {
        const rows = await newestMatches(pool, statements, t, scope, q, window)
        expect(
          rows.map((r) => r.id),
          `${JSON.stringify(q)} in ${window}`,
        ).toEqual(wanted)
      }
    }
    const [first] = await newestMatches(pool, statements, t, scope, { ...cases[0]!, texts: true })
    expect(first?.text).toBe(`text ${first!.startLine - 1}`)
  })

  it('brings every keyword hit its text in the candidates read, the same hits as without', async () => {
    const under = await testPostgresEngine(null)
    cleanup.push(() => under.dispose())
    const store = await under.engine.openSpace({ kind: 'agent', id: 'main' })
    await store.applyChanges({ replace: [file('memory/a.md', 0, 30)] }, STEPS)
    const ops = createReaderOps(store)
    const req = { terms: ['alpha', 'w3'], limit: 8, filters: {} }
    const plain = await ops.keyword(req)
    const withTexts = await ops.keyword({ ...req, texts: 2 })
    expect(plain.length).toBe(8)
    expect(plain.every((h) => h.text === undefined)).toBe(true)
    expect(withTexts.map(({ text: _text, bodyTerms: _terms, ...head }) => head)).toEqual(plain)
    const texts = await ops.texts(plain.map((h) => h.id))
    expect(withTexts.map((h) => h.text)).toEqual(plain.map((h) => texts.get(h.id)?.text))
    // Each with its body terms, read in the same trip, for the snippet (search/snippet.ts).
    expect(withTexts.every((h) => h.bodyTerms?.split(' ').includes('beta'))).toBe(true)
  })

  it('reads the candidates and the statistics of every query term in one statement, as read apart', async () => {
    const under = await testPostgresEngine(null)
    cleanup.push(() => under.dispose())
    const store = await under.engine.openSpace({ kind: 'agent', id: 'main' })
    await store.applyChanges({ replace: [file('memory/a.md', 0, 30), file('notes/b.md', 30, 30)] }, STEPS)
    const statsOf = ['alpha', 'beta', 'w7', 'absent']
    const cases: KeywordQuery[] = [
      { terms: ['alpha', 'w7'], limit: 5, headingWeight: 2 },
      { terms: ['alpha', 'w7'], limit: 5, headingWeight: 2, pathPrefix: 'notes/', texts: true },
      { terms: ['alpha'], limit: 3, headingWeight: 2 },
      // No candidate passes the filter: the statistics come all the same.
      { terms: ['alpha', 'w7'], limit: 5, headingWeight: 2, pathPrefix: 'nowhere/' },
      { terms: ['absent'], limit: 5, headingWeight: 2 },
    ]
    for (const q of cases) {
      const together = await store.candidatesWithStats!(q, statsOf)
      expect(together.rows, JSON.stringify(q)).toEqual(await store.candidates(q))
      expect(together.stats, JSON.stringify(q)).toEqual(await store.keywordStats(statsOf))
    }
    expect((await store.candidatesWithStats!(cases[0]!, statsOf)).rows.length).toBe(5)
    expect((await store.keywordStats(statsOf)).docFreqs).toEqual([20, 60, 1, 0])
  })
})
