/** A PostgreSQL engine over the test database, in a schema of its own that is dropped after. */
import { randomBytes } from 'node:crypto'
import { pino } from 'pino'
import { inject } from 'vitest'
import type { VectorConfig } from '../../src/store/port.js'
import type { ImpactListOptions } from '../../src/store/postgres/impact-lists.js'
import { createPostgresEngine } from '../../src/store/postgres/engine.js'
import { dropSchema as dropSchemaAt } from '../../scripts/drop-schema.js'
import { createReaderOps } from '../../src/search/index-reader.js'

export const databaseUrl = (): string => inject('databaseUrl')
export const databaseVectors = (): boolean => inject('databaseVectors')

/** A fresh schema name. */
export const freshSchema = (): string => `t_${randomBytes(6).toString('hex')}`

/** Drops a test schema with everything in it. */
export const dropSchema = (schema: string): Promise<void> => dropSchemaAt(databaseUrl(), schema)

export async function testPostgresEngine(
  vectors: VectorConfig,
  schema = freshSchema(),
  impactLists?: ImpactListOptions,
) {
  const engine = await createPostgresEngine({
    readOps: createReaderOps,
    url: databaseUrl(),
    schema,
    poolMax: inject('databasePool'),
    // A lost database fails at once: the contract tests never take it away.
    waitMs: 0,
    vectors: () => vectors,
    vectorsWanted: vectors !== null,
    ...(impactLists && { impactLists }),
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
