import pg from 'pg'
import { describe, expect, it } from 'vitest'
import type { ChunkInput, FileRecord } from '../../src/domain/chunks.js'
import { PG_SCHEMA_VERSION } from '../../src/store/postgres/migrations.js'
import { databaseUrl, testPostgresEngine } from './pg-engine.js'
import { termChunk } from '../helpers/term-chunk.js'

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
    [1, ['dated_ms', ...ENTRY_COLUMNS], LIST_COLUMNS],
    [2, ENTRY_COLUMNS, LIST_COLUMNS],
    [3, ['entry_hash'], LIST_COLUMNS],
    [4, [], LIST_COLUMNS],
    [5, [], []],
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
        if (version < 5) await client.query(`DROP TABLE ${first.schema}.postings`)
        await client.query(`ALTER TABLE ${first.schema}.chunks DROP COLUMN counts, ADD COLUMN tf jsonb NOT NULL`)
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
          const postings = await client.query<{ t: string | null }>(`SELECT to_regclass($1)::text AS t`, [
            `${first.schema}.postings`,
          ])
          expect(postings.rows[0]?.t).not.toBeNull()
          const recorded = await client.query(`SELECT version FROM ${first.schema}.schema_version`)
          expect(recorded.rows).toEqual([{ version: PG_SCHEMA_VERSION }])
          expect(PG_SCHEMA_VERSION).toBe(6)
        } finally {
          await again.dispose()
        }
      } finally {
        await client.end()
      }
    },
  )

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
         ALTER TABLE ${first.schema}.chunks DROP COLUMN counts, ALTER COLUMN tf SET NOT NULL;
         UPDATE ${first.schema}.schema_version SET version = 5`,
      )
      const again = await testPostgresEngine(null, first.schema)
      try {
        expect(await client.query(`SELECT id, counts FROM ${first.schema}.chunks ORDER BY id`)).toMatchObject({
          rows: counts.rows,
        })
        // Kept inline, and not sampled by ANALYZE (no query filters on it).
        const counted = await client.query<{ storage: string; stats: number }>(
          `SELECT attstorage AS storage, COALESCE(attstattarget, -1) AS stats FROM pg_attribute
           WHERE attrelid = $1::regclass AND attname = 'counts'`,
          [`${first.schema}.chunks`],
        )
        expect(counted.rows).toEqual([{ storage: 'm', stats: 0 }])
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
