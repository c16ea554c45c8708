import pg from 'pg'
import { describe, expect, it } from 'vitest'
import type { ChunkInput, FileRecord } from '../../src/domain/chunks.js'
import { PG_SCHEMA_VERSION } from '../../src/store/postgres/migrations.js'
import { databaseUrl, testPostgresEngine } from './pg-engine.js'
import { termChunk } from '../helpers/term-chunk.js'
import { termCheck, termHash } from '../../src/store/postgres/term-hash.js'

/** Chunk `i`: `alpha` i times in its body, `beta` in its heading when i is even. */
function chunk(i: number): ChunkInput {
  const body = [...Array<string>(i).fill('alpha'), 'gamma', `only${i}`]
  const heading = i % 2 === 0 ? ['beta', 'beta'] : []
  return termChunk(i, body, heading)
}

const record: FileRecord = {
  path: 'memory/a.md',
  source: 'memory',
  sha256: 'a',
  sizeBytes: 1,
  mtimeMs: 1,
  lineCount: 6,
  chunkCount: 6,
  indexedAtMs: 1,
  readSeq: 1,
}

const ENTRY_COLUMNS = ['entry_status', 'entry_observed', 'entry_key', 'entry_origin', 'entry_hash']
const LIST_COLUMNS = ['floor', 'listed']

describe('PostgreSQL schema upgrade', () => {
  it.each([
    // [version, the chunk columns it did not have yet, the term columns]
    [1, ['dated_ms', ...ENTRY_COLUMNS, 'hashes', 'checks'], [...LIST_COLUMNS, 'reference']],
    [2, [...ENTRY_COLUMNS, 'hashes', 'checks'], [...LIST_COLUMNS, 'reference']],
    [3, ['entry_hash', 'hashes', 'checks'], [...LIST_COLUMNS, 'reference']],
    [4, ['hashes', 'checks'], [...LIST_COLUMNS, 'reference']],
    [5, ['hashes', 'checks'], ['reference']],
    [6, ['hashes', 'checks'], ['reference']],
    [7, ['checks'], []],
    [8, [], []],
    [9, [], []],
  ])(
    'adds to a schema of version %i the columns it lacks and records the new version',
    async (version, missing, missingTerms) => {
      const first = await testPostgresEngine(null)
      const client = new pg.Client({ connectionString: databaseUrl() })
      await client.connect()
      try {
        await first.engine.close()
        // What that version was: without those columns.
        for (const column of missing) await client.query(`ALTER TABLE ${first.schema}.chunks DROP COLUMN ${column}`)
        for (const column of missingTerms) await client.query(`ALTER TABLE ${first.schema}.terms DROP COLUMN ${column}`)
        // Every version before 10 kept its impact lists in every write.
        await client.query(`ALTER TABLE ${first.schema}.indexes DROP COLUMN lists, DROP COLUMN list_build`)
        if (version < 5) await client.query(`DROP TABLE ${first.schema}.postings`)
        if (version < 6) {
          await client.query(`ALTER TABLE ${first.schema}.chunks DROP COLUMN counts, ADD COLUMN tf jsonb NOT NULL`)
        }
        await client.query(`UPDATE ${first.schema}.schema_version SET version = $1`, [version])
        const again = await testPostgresEngine(null, first.schema)
        try {
          const columns = await client.query<{ column_name: string }>(
            `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'chunks'
             AND column_name = ANY($2::text[])`,
            [first.schema, missing],
          )
          expect(columns.rows.map((r) => r.column_name).sort()).toEqual([...missing].sort())
          const termColumns = await client.query<{ column_name: string }>(
            `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'terms'
             AND column_name = ANY($2::text[])`,
            [first.schema, missingTerms],
          )
          expect(termColumns.rows.map((r) => r.column_name).sort()).toEqual([...missingTerms].sort())
          const lists = await client.query<{ d: string }>(
            `SELECT column_default AS d FROM information_schema.columns WHERE table_schema = $1
             AND table_name = 'indexes' AND column_name = 'lists'`,
            [first.schema],
          )
          expect(lists.rows).toEqual([{ d: "'kept'::text" }])
          const postings = await client.query<{ t: string | null }>(`SELECT to_regclass($1)::text AS t`, [
            `${first.schema}.postings`,
          ])
          expect(postings.rows[0]?.t).not.toBeNull()
          const recorded = await client.query(`SELECT version FROM ${first.schema}.schema_version`)
          expect(recorded.rows).toEqual([{ version: PG_SCHEMA_VERSION }])
          expect(PG_SCHEMA_VERSION).toBe(10)
        } finally {
          await again.dispose()
        }
      } finally {
        await client.end()
      }
    },
  )

  it('keeps terms in the order of their hashes, and ranks rows written before schema 8 (no checks) and 7 (no hashes) alike', async () => {
    const first = await testPostgresEngine(null)
    const client = new pg.Client({ connectionString: databaseUrl() })
    await client.connect()
    try {
      const store = await first.engine.openSpace({ kind: 'agent', id: 'main' })
      // `t7pfs` and `tovja` share a first hash: chunk 6 holds both, the others `t7pfs` alone.
      const chunks = Array.from({ length: 6 }, (_, i) => {
        const c = chunk(i + 1)
        const extra = i === 5 ? ['t7pfs', 'tovja'] : ['t7pfs']
        return termChunk(
          i + 1,
          [...c.bodyTerms.split(' '), '中文', 'zeta', ...extra],
          c.headingTerms.split(' ').filter(Boolean),
        )
      })
      await store.applyChanges({ replace: [{ record, chunks }] }, { between: async () => undefined })
      // `alpha0` and `tovja` are in none of chunks 1–5: the hash search gives them some term's
      // slot, `tovja` the slot of `t7pfs`, whose first hash is the same and whose check is not.
      const queries = [
        ['alpha'],
        ['beta', 'zeta'],
        ['alpha', 'beta', 'gamma'],
        ['only3', 'missing'],
        ['中文', 'aaa'],
        ['alpha0', 'gamma'],
        ['tovja', 'gamma'],
      ]
      const rank = async () => {
        const ranked = []
        for (const terms of queries) ranked.push(await store.candidates({ terms, limit: 4, headingWeight: 2 }))
        return ranked
      }
      const stored = await client.query<{ terms: string[]; hashes: number[] | null; checks: number[] | null }>(
        `SELECT terms, hashes, checks FROM ${first.schema}.chunks ORDER BY id`,
      )
      for (const [i, row] of stored.rows.entries()) {
        if (i === 5) {
          expect([row.hashes, row.checks]).toEqual([null, null])
          continue
        }
        const terms = row.terms.map((key) => key.slice(key.indexOf(':') + 1))
        const hashes = row.hashes ?? []
        expect(hashes).toEqual(terms.map(termHash))
        expect(hashes).toEqual([...hashes].sort((a, b) => a - b))
        expect(row.checks).toEqual(terms.map(termCheck))
      }
      const hashed = await rank()
      // As schema 7 wrote them: no checks, the key at the slot compared instead.
      await client.query(`UPDATE ${first.schema}.chunks SET checks = NULL`)
      expect(await rank()).toEqual(hashed)
      // As schema 6 wrote them: no hashes, terms (here reversed) and their counts in another order.
      await client.query(
        `UPDATE ${first.schema}.chunks c SET hashes = NULL, terms = r.terms, counts = r.counts FROM (
           SELECT id, ARRAY(SELECT terms[i] FROM generate_subscripts(terms, 1) AS i ORDER BY i DESC) AS terms,
             ARRAY(SELECT counts[2 * i - 2 + j] FROM generate_subscripts(terms, 1) AS i, generate_series(1, 2) AS j
               ORDER BY i DESC, j) AS counts
           FROM ${first.schema}.chunks) r WHERE c.id = r.id`,
      )
      expect(await rank()).toEqual(hashed)
      expect(hashed.map((hits) => hits.length)).toEqual([4, 4, 4, 1, 4, 4, 4])
      // Shortest first (chunk i: i + 5 terms, 2 more in the heading when even): `alpha0`
      // counts nothing where `alpha`, whose slot it may be given, counts more in longer chunks.
      expect(hashed[5]?.map((hit) => hit.startLine)).toEqual([1, 3, 2, 5])
      // `tovja` counts in chunk 6 alone, where it is, not where its first-hash twin `t7pfs` is.
      expect(hashed[6]?.[0]?.startLine).toBe(6)
    } finally {
      await first.dispose()
      await client.end()
    }
  })

  it('converts the term counts of schema 5 (tf jsonb) in place: searches rank as before the upgrade', async () => {
    const first = await testPostgresEngine(null)
    const client = new pg.Client({ connectionString: databaseUrl() })
    await client.connect()
    try {
      const store = await first.engine.openSpace({ kind: 'agent', id: 'main' })
      const chunks = Array.from({ length: 6 }, (_, i) => chunk(i + 1))
      await store.applyChanges({ replace: [{ record, chunks }] }, { between: async () => undefined })
      const queries = [['alpha'], ['beta'], ['alpha', 'beta', 'gamma'], ['only3', 'missing']]
      const rank = async (s: typeof store) => {
        const ranked = []
        for (const terms of queries) ranked.push(await s.candidates({ terms, limit: 4, headingWeight: 2 }))
        return ranked
      }
      const before = await rank(store)
      const counts = await client.query(`SELECT id, counts FROM ${first.schema}.chunks ORDER BY id`)
      await first.engine.close()
      // Schema 5: each chunk's counts as a jsonb object {"term": [body, heading]}.
      await client.query(
        `ALTER TABLE ${first.schema}.chunks ADD COLUMN tf jsonb;
         UPDATE ${first.schema}.chunks SET tf = (SELECT jsonb_object_agg(substr(k, strpos(k, ':') + 1),
           jsonb_build_array(counts[2 * at - 1], counts[2 * at])) FROM unnest(terms) WITH ORDINALITY AS u(k, at));
         ALTER TABLE ${first.schema}.chunks DROP COLUMN counts, DROP COLUMN hashes, DROP COLUMN checks,
           ALTER COLUMN tf SET NOT NULL;
         UPDATE ${first.schema}.schema_version SET version = 5`,
      )
      const again = await testPostgresEngine(null, first.schema)
      try {
        expect(await client.query(`SELECT id, counts FROM ${first.schema}.chunks ORDER BY id`)).toMatchObject({
          rows: counts.rows,
        })
        // Kept inline, and not sampled by ANALYZE (no query filters on them, or by values
        // the planner could look up: the terms' keys are computed in each statement).
        const counted = await client.query<{ name: string; storage: string; stats: number }>(
          `SELECT attname AS name, attstorage AS storage, COALESCE(attstattarget, -1) AS stats FROM pg_attribute
           WHERE attrelid = $1::regclass AND attname IN ('terms', 'counts', 'hashes', 'checks') ORDER BY attname`,
          [`${first.schema}.chunks`],
        )
        expect(counted.rows).toEqual([
          { name: 'checks', storage: 'm', stats: 0 },
          { name: 'counts', storage: 'm', stats: 0 },
          { name: 'hashes', storage: 'm', stats: 0 },
          { name: 'terms', storage: 'm', stats: 0 },
        ])
        const upgraded = await again.engine.openSpace({ kind: 'agent', id: 'main' })
        expect(await rank(upgraded)).toEqual(before)
        expect(before[0]?.length).toBe(4)
      } finally {
        await again.dispose()
      }
    } finally {
      await client.end()
    }
  })
})
