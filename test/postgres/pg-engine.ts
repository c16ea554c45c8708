/** A PostgreSQL engine over the test database, in a schema of its own that is dropped after. */
import { randomBytes } from 'node:crypto'
import { pino } from 'pino'
import { inject } from 'vitest'
import type { VectorConfig } from '../../src/store/port.js'
import { createPostgresEngine } from '../../src/store/postgres/engine.js'
import { dropSchema as dropSchemaAt } from '../../scripts/drop-schema.js'

// This worker's database (worker-database.ts), else the run's (global-setup.ts).
const worker = process.env
export const databaseUrl = (): string => worker.MNEMO_WORKER_DATABASE_URL ?? inject('databaseUrl')
export const databaseVectors = (): boolean =>
  worker.MNEMO_WORKER_DATABASE_VECTORS ? worker.MNEMO_WORKER_DATABASE_VECTORS === 'true' : inject('databaseVectors')
export const databasePool = (): number =>
  worker.MNEMO_WORKER_DATABASE_POOL ? Number(worker.MNEMO_WORKER_DATABASE_POOL) : inject('databasePool')

/** A fresh schema name. */
export const freshSchema = (): string => `t_${randomBytes(6).toString('hex')}`

/** Drops a test schema with everything in it. */
export const dropSchema = (schema: string): Promise<void> => dropSchemaAt(databaseUrl(), schema)

export async function testPostgresEngine(vectors: VectorConfig, schema = freshSchema()) {
  const engine = await createPostgresEngine({
    url: databaseUrl(),
    schema,
    poolMax: databasePool(),
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
