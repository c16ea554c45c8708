/** A PostgreSQL engine over the test database, in a schema of its own that is dropped after. */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { pino } from 'pino'
import { inject } from 'vitest'
import type { VectorConfig } from '../../src/store/port.js'
import { createPostgresEngine } from '../../src/store/postgres/engine.js'

export const databaseUrl = (): string => inject('databaseUrl')
export const databaseVectors = (): boolean => inject('databaseVectors')

/** A fresh schema name. */
export const freshSchema = (): string => `t_${randomBytes(6).toString('hex')}`

/** Drops a test schema with everything in it. */
export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl() })
  await client.connect()
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  } finally {
    await client.end()
  }
}

export async function testPostgresEngine(vectors: VectorConfig, schema = freshSchema()) {
  const engine = await createPostgresEngine({
    url: databaseUrl(),
    schema,
    poolMax: inject('databasePool'),
    vectors: () => vectors,
    vectorsWanted: vectors !== null,
    log: pino({ level: 'silent' }),
  })
  return {
    engine,
    schema,
    vectors: vectors !== null,
    async dispose(): Promise<void> {
      await engine.close()
      await dropSchema(schema)
    },
  }
}
