import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { PG_SCHEMA_VERSION } from '../../src/store/postgres/migrations.js'
import { databaseUrl, testPostgresEngine } from './pg-engine.js'

const ENTRY_COLUMNS = ['entry_status', 'entry_observed', 'entry_key', 'entry_origin', 'entry_hash']
const LIST_COLUMNS = ['floor', 'listed']

describe('PostgreSQL schema upgrade', () => {
  it.each([
    // [version, the chunk columns it did not have yet, the term columns]
    [1, ['dated_ms', ...ENTRY_COLUMNS], LIST_COLUMNS],
    [2, ENTRY_COLUMNS, LIST_COLUMNS],
    [3, ['entry_hash'], LIST_COLUMNS],
    [4, [], LIST_COLUMNS],
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
        await client.query(`DROP TABLE ${first.schema}.postings`)
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
          expect(PG_SCHEMA_VERSION).toBe(5)
        } finally {
          await again.dispose()
        }
      } finally {
        await client.end()
      }
    },
  )
})
