import { pino } from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import type { ChunkInput, FileRecord } from '../../src/domain/chunks.js'
import type { FileRows, KeywordQuery, StepOptions } from '../../src/store/port.js'
import { createPool, tablesOf } from '../../src/store/postgres/database.js'
import type { ImpactListOptions } from '../../src/store/postgres/impact-lists.js'
import { postingImpact } from '../../src/store/impact.js'
import { columnCounts } from '../../src/text/term-count.js'
import { createIndexReads } from '../../src/store/postgres/index-reads.js'
import { liveScope } from '../../src/store/postgres/read-sql.js'
import { listCandidates } from '../../src/store/postgres/list-candidates.js'
import { createNamedStatements } from '../../src/store/postgres/named-statements.js'
import { databaseUrl, testPostgresEngine } from './pg-engine.js'
import { termChunk } from '../helpers/term-chunk.js'

const STEPS: StepOptions = { between: async () => undefined }
/** A full pass's writes: the index compacts when the pass ends. */
const PASS: StepOptions = { ...STEPS, compactsAfter: true }
/** Lists from 3 chunks on, cut back to 4 postings: every few writes build, grow and cut lists. */
const LISTS = { minDocFreq: 3, keep: 4 }
/** LISTS, with paused lists built 5 chunks a transaction: a 40-chunk index takes several. */
const STAGED = { ...LISTS, resumeChunks: 5 }

/**
 * Chunk `i` of a file: `alpha` 1–4 times in bodies of 200–310 terms (about the length impacts
 * normalise against, as in real notes), in some headings.
 */
function chunk(i: number): ChunkInput {
  const fillers = 200 + 5 * ((i * 7) % 23)
  const body = [...Array<string>(1 + (i % 4)).fill('alpha'), ...Array<string>(fillers).fill('filler'), 'beta']
  const heading = i % 5 === 0 ? ['alpha'] : []
  return termChunk(i + 1, body, heading)
}

function file(path: string, readSeq: number, from: number, count: number): FileRows {
  const chunks = Array.from({ length: count }, (_, i) => chunk(from + i))
  const record: FileRecord = {
    path,
    source: 'memory',
    sha256: `${path}-${readSeq}`,
    sizeBytes: 1,
    mtimeMs: 1,
    lineCount: count,
    chunkCount: count,
    indexedAtMs: 1,
    readSeq,
  }
  return { record, chunks }
}

/** The engine's named keyword statements, falling back to unnamed on PGlite's one shared session. */
const statements = createNamedStatements(pino({ level: 'silent' }))

describe('PostgreSQL impact lists', () => {
  const cleanup: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn()
  })

  async function setUp(lists: ImpactListOptions = LISTS) {
    const under = await testPostgresEngine(null, undefined, lists)
    cleanup.push(() => under.dispose())
    const store = await under.engine.openSpace({ kind: 'agent', id: 'main' })
    const pool = createPool({ url: databaseUrl(), max: 2, connectTimeoutMs: 10_000 })
    cleanup.push(() => pool.end())
    const t = tablesOf(under.schema)
    const scope = liveScope(t, 'agent:main')
    const scan = createIndexReads(pool, t, statements)
    return { store, pool, t, scope, scan }
  }

  type Setup = Awaited<ReturnType<typeof setUp>>

  /** Every posting of a listed term at or above its floor is listed, and `listed` counts the list. */
  async function expectListsWhole({ pool, t }: Setup) {
    const terms = await pool.query<{ term: string; df: number; floor: number; listed: number; reference: number }>(
      `SELECT term, df, floor, listed, reference FROM ${t.terms} WHERE floor IS NOT NULL`,
    )
    expect(terms.rows.length).toBeGreaterThan(0)
    const read = await pool.query<{ id: number; body_terms: string; heading_terms: string; token_count: number }>(
      `SELECT id, body_terms, heading_terms, token_count FROM ${t.chunks}`,
    )
    // Each term's [body, heading], counted from the chunk's term strings.
    const chunks = read.rows.map((c) => ({
      ...c,
      tf: Object.fromEntries(columnCounts(c.body_terms, c.heading_terms)),
    }))
    const lengths = chunks.map((c) => c.token_count)
    for (const { term, df, floor, listed, reference } of terms.rows) {
      // Impacts against the index's average chunk length when the list was built.
      expect(reference).toBeGreaterThanOrEqual(Math.min(...lengths))
      expect(reference).toBeLessThanOrEqual(Math.max(...lengths))
      const rows = await pool.query<{ chunk_id: number }>(`SELECT chunk_id FROM ${t.postings} WHERE term = $1`, [term])
      const inList = rows.rows.map((r) => r.chunk_id)
      const due = chunks
        .filter((c) => c.tf[term] && postingImpact(c.tf[term][0], c.tf[term][1], c.token_count, reference) >= floor)
        .map((c) => c.id)
      expect(inList.length).toBe(listed)
      expect(inList).toEqual(expect.arrayContaining(due))
      // Cut back once past twice `keep`: a write adds at most one posting per chunk to it.
      if (term === 'alpha') expect(listed).toBeLessThan(df)
    }
  }

  /** The store's candidates (from lists where they can tell) are the scan's, for every limit. */
  async function expectCandidatesAsScanned({ store, scan, scope }: Setup, extra: Partial<KeywordQuery> = {}) {
    for (const terms of [['alpha'], ['beta'], ['alpha', 'beta'], ['filler']]) {
      for (let limit = 1; limit <= 12; limit++) {
        const q = { terms, limit, headingWeight: 2, ...extra }
        const scanned = await scan.candidates(scope, q)
        expect(await store.candidates(q)).toEqual(scanned)
        // Read with the statistics of every query term in the same statement: the same rows.
        const statsOf = [...terms, 'absent']
        const together = await store.candidatesWithStats!(q, statsOf)
        expect(together.rows).toEqual(scanned)
        expect(together.stats).toEqual(await store.keywordStats(statsOf))
      }
    }
  }

  it('keeps each common term’s best postings listed and ranks from them exactly as a scan does', async () => {
    const setup = await setUp()
    const { store, pool, t, scope, scan } = setup
    for (let f = 0; f < 6; f++) await store.applyChanges({ replace: [file(`memory/${f}.md`, f + 1, f * 8, 8)] }, STEPS)
    await expectListsWhole(setup)
    await expectCandidatesAsScanned(setup)
    await expectCandidatesAsScanned(setup, { pathPrefix: 'memory/3' })
    // The list answers a one-term query itself when its best postings beat what it did not read.
    const q = { terms: ['alpha'], limit: 2, headingWeight: 2 }
    const listed = await listCandidates(pool, statements, t, scope, q, 8)
    expect(listed).not.toBeNull()
    expect(listed).toEqual({ rows: await scan.candidates(scope, q) })
    const withStats = await listCandidates(pool, statements, t, scope, q, 8, ['alpha', 'beta'])
    expect(withStats).toEqual({ rows: listed!.rows, stats: await store.keywordStats(['alpha', 'beta']) })
  })

  it('reads a one-term query’s list only when the term is in enough chunks to have one, with the same candidates', async () => {
    const setup = await setUp()
    const { store, pool, t, scope, scan } = setup
    for (let f = 0; f < 6; f++) await store.applyChanges({ replace: [file(`memory/${f}.md`, f + 1, f * 8, 8)] }, STEPS)
    const asked: string[] = []
    const counting = {
      query: ((text: unknown, values?: unknown) => {
        asked.push(typeof text === 'string' ? text : (text as { text: string }).text)
        return pool.query(text as string, values as unknown[])
      }) as typeof pool.query,
    }
    const reads = createIndexReads(counting, t, statements, LISTS)
    const listReads = () => asked.splice(0).filter((text) => text.includes(t.postings)).length
    const q = { terms: ['alpha'], limit: 2, headingWeight: 2 }
    const [df] = (await store.keywordStats(['alpha'])).docFreqs as [number]
    expect(df).toBeGreaterThanOrEqual(LISTS.minDocFreq)
    const scanned = await scan.candidates(scope, q)
    for (const [docFreqs, lists] of [
      [undefined, 1],
      [[df], 1],
      [[LISTS.minDocFreq - 1], 0],
    ] as const) {
      expect(await reads.candidates(scope, { ...q, docFreqs }), JSON.stringify(docFreqs)).toEqual(scanned)
      expect(listReads(), JSON.stringify(docFreqs)).toBe(lists)
      expect((await reads.candidatesWithStats(scope, { ...q, docFreqs }, ['alpha'])).rows).toEqual(scanned)
      expect(listReads(), JSON.stringify(docFreqs)).toBe(lists)
    }
  })

  /** The lists' state of the space's live index, and how many postings its lists hold. */
  async function listState({ pool, t }: Setup) {
    const { rows } = await pool.query<{ lists: string; postings: number }>(
      `SELECT i.lists, (SELECT COUNT(*)::int FROM ${t.postings} p WHERE p.index_id = i.id) AS postings
       FROM ${t.indexes} i WHERE i.id = (SELECT live FROM ${t.spaces} WHERE space = 'agent:main')`,
    )
    return rows[0]
  }

  /** Postings written to the live index's lists, kept or still being built. */
  const written = async (setup: Setup) => (await listState(setup))!.postings

  /** A full pass's writes of 4 files of 8 chunks into the empty index: they pause its lists. */
  async function passIntoEmpty({ store }: Setup) {
    for (let f = 0; f < 4; f++) await store.applyChanges({ replace: [file(`memory/${f}.md`, f + 1, f * 8, 8)] }, PASS)
  }

  it('pauses the lists while a full pass fills an empty index, ranks exactly meanwhile, and builds them after it', async () => {
    const setup = await setUp(STAGED)
    const { store } = setup
    await passIntoEmpty(setup)
    // A write that is not the pass's (an agent's, another replica's) leaves them paused too.
    await store.applyChanges({ replace: [file('memory/4.md', 5, 32, 8)] }, STEPS)
    const [df] = (await store.keywordStats(['alpha'])).docFreqs as [number]
    expect(df).toBeGreaterThanOrEqual(LISTS.minDocFreq)
    expect(await listState(setup)).toEqual({ lists: 'paused', postings: 0 })
    await expectCandidatesAsScanned(setup)
    await store.compact!(STEPS)
    expect(await listState(setup)).toMatchObject({ lists: 'kept' })
    expect((await listState(setup))!.postings).toBeGreaterThan(0)
    await expectListsWhole(setup)
    await expectCandidatesAsScanned(setup)
    // Kept by every write again, a full pass's included now that the index is not empty.
    await store.applyChanges({ replace: [file('memory/5.md', 6, 40, 8)] }, PASS)
    await store.applyChanges({ remove: [{ path: 'memory/1.md', readSeq: 7 }] }, STEPS)
    expect((await listState(setup))!.lists).toBe('kept')
    await expectListsWhole(setup)
    await expectCandidatesAsScanned(setup)
  })

  it('builds paused lists over again after a compaction cut short, with the chunks written and deleted meanwhile', async () => {
    const setup = await setUp(STAGED)
    const { store } = setup
    await passIntoEmpty(setup)
    // Stopped (a shutdown) once it has written postings: what it wrote is not searched.
    const stop = new AbortController()
    const cutShort = store.compact!({
      between: async () => {
        if ((await written(setup)) > 0) stop.abort()
      },
      signal: stop.signal,
    })
    await expect(cutShort).rejects.toThrow()
    expect(await written(setup)).toBeGreaterThan(0)
    expect((await listState(setup))!.lists).toBe('paused')
    await expectCandidatesAsScanned(setup)
    // Built again from the start. While it ranks, without the lock, a file whose chunks it
    // read is deleted, one is replaced (its new chunks come after those it has read), and
    // one is added; once it writes postings, one more is deleted and one added.
    let step = 0
    let writing = false
    await store.compact!({
      between: async () => {
        if (++step === 3) {
          await store.applyChanges({ remove: [{ path: 'memory/0.md', readSeq: 10 }] }, STEPS)
          await store.applyChanges({ replace: [file('memory/2.md', 11, 50, 6)] }, STEPS)
          await store.applyChanges({ replace: [file('memory/7.md', 12, 60, 8)] }, PASS)
          expect((await listState(setup))!.lists).toBe('paused')
        } else if (!writing && (await written(setup)) > 0) {
          writing = true
          await store.applyChanges({ remove: [{ path: 'memory/1.md', readSeq: 13 }] }, STEPS)
          await store.applyChanges({ replace: [file('memory/8.md', 14, 70, 8)] }, STEPS)
        }
      },
    })
    expect(writing).toBe(true)
    expect((await listState(setup))!.lists).toBe('kept')
    await expectListsWhole(setup)
    await expectCandidatesAsScanned(setup)
  })

  it('stops a build another began again meanwhile, and leaves the lists paused for the next', async () => {
    const setup = await setUp(STAGED)
    const { store } = setup
    await passIntoEmpty(setup)
    // While it writes postings, another build begins (as on a replica once a database
    // restart took this one's lock with its connection), drops them, and is stopped itself.
    let other = false
    await store.compact!({
      between: async () => {
        if (other || (await written(setup)) === 0) return
        other = true
        const stop = new AbortController()
        let steps = 0
        const cutShort = store.compact!({
          between: async () => {
            if (++steps === 2) stop.abort()
          },
          signal: stop.signal,
        })
        await expect(cutShort).rejects.toThrow()
      },
    })
    expect(other).toBe(true)
    // Marked kept, its lists would lack what the other dropped.
    expect((await listState(setup))!.lists).toBe('paused')
    await expectCandidatesAsScanned(setup)
    await store.compact!(STEPS)
    expect((await listState(setup))!.lists).toBe('kept')
    await expectListsWhole(setup)
    await expectCandidatesAsScanned(setup)
  })

  it('builds a list again from its chunks when those above its floor are deleted before the end', async () => {
    const setup = await setUp(STAGED)
    const { store } = setup
    // Chunks of one length with `alpha` `n` times: the more, the higher the impact.
    const withAlpha = (path: string, readSeq: number, counts: number[]): FileRows => {
      const rows = file(path, readSeq, 0, counts.length)
      const chunks = counts.map((n, i) =>
        termChunk(i + 1, [...Array<string>(n).fill('alpha'), ...Array<string>(220 - n).fill('filler')], []),
      )
      return { record: { ...rows.record, chunkCount: chunks.length, lineCount: chunks.length }, chunks }
    }
    // The first read ranks A's four chunks and B's first: alpha's floor is A's impact, above
    // all of B's, which are then not written.
    await store.applyChanges(
      { replace: [withAlpha('memory/a.md', 1, [8, 8, 8, 8]), withAlpha('memory/b.md', 2, [5, 4, 3, 2, 1])] },
      PASS,
    )
    let step = 0
    await store.compact!({
      between: async () => {
        if (++step === 3) await store.applyChanges({ remove: [{ path: 'memory/a.md', readSeq: 3 }] }, STEPS)
      },
    })
    expect(step).toBeGreaterThan(3)
    expect((await listState(setup))!.lists).toBe('kept')
    // What was at or above alpha's floor is gone: its list is B's best four, read from B's chunks.
    const alpha = await setup.pool.query(`SELECT chunk_id FROM ${setup.t.postings} WHERE term = 'alpha'`)
    expect(alpha.rows).toHaveLength(LISTS.keep)
    await expectListsWhole(setup)
    await expectCandidatesAsScanned(setup)
  })

  it('takes deleted and replaced chunks out of the lists', async () => {
    const setup = await setUp()
    const { store } = setup
    for (let f = 0; f < 4; f++) await store.applyChanges({ replace: [file(`memory/${f}.md`, f + 1, f * 8, 8)] }, STEPS)
    await store.applyChanges({ remove: [{ path: 'memory/1.md', readSeq: 10 }] }, STEPS)
    await store.applyChanges({ replace: [file('memory/2.md', 11, 40, 3)] }, STEPS)
    await expectListsWhole(setup)
    await expectCandidatesAsScanned(setup)
  })
})
