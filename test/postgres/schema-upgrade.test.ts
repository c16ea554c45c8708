import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { PG_SCHEMA_VERSION } from '../../src/store/postgres/migrations.js'
import { databaseUrl, testPostgresEngine } from './pg-engine.js'

describe('PostgreSQL schema upgrade', () => {
  it('adds chunks.dated_ms to a schema of version 1 and records the new version', async () => {
    const first = await testPostgresEngine(null)
    const client = new pg.Client({ connectionString: databaseUrl() })
    await client.connect()
    try {
      await first.engine.close()
      // What version 1 was: no dated_ms column.
      await client.query(`ALTER TABLE ${first.schema}.chunks DROP COLUMN dated_ms`)
      await client.query(`UPDATE ${first.schema}.schema_version SET version = 1`)
      const again = await testPostgresEngine(null, first.schema)
      try {
        const columns = await client.query(
          `SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'chunks' AND column_name = 'dated_ms'`,
          [first.schema],
        )
        expect(columns.rowCount).toBe(1)
        const version = await client.query(`SELECT version FROM ${first.schema}.schema_version`)
        expect(version.rows).toEqual([{ version: PG_SCHEMA_VERSION }])
        expect(PG_SCHEMA_VERSION).toBe(2)
      } finally {
        await again.dispose()
      }
    } finally {
      await client.end()
    }
  })
})
