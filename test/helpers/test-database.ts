/**
 * The engine the API tests run on: SQLite (the default), or the `postgres-api` project's
 * database (MNEMO_TEST_ENGINE=postgres) in a schema per workspace, so an app rebuilt over the
 * same workspace (a restart) finds its index again.
 */
import { inject } from 'vitest'
import { dropSchema, freshSchema } from '../postgres/pg-engine.js'
import type { TempWorkspace } from './temp-workspace.js'

const schemas = new Map<string, string>()

/** Whether the API tests run on PostgreSQL. */
export const onPostgres = (): boolean => process.env.MNEMO_TEST_ENGINE === 'postgres'

export function testDatabaseEnv(ws: TempWorkspace): { env: Record<string, string>; drop(): Promise<void> } | null {
  if (!onPostgres()) return null
  let schema = schemas.get(ws.base)
  if (!schema) schemas.set(ws.base, (schema = freshSchema()))
  const name = schema
  return {
    env: {
      MNEMO_DATABASE_URL: inject('databaseUrl'),
      MNEMO_DATABASE_SCHEMA: name,
      MNEMO_DATABASE_POOL: String(inject('databasePool')),
    },
    async drop() {
      schemas.delete(ws.base)
      await dropSchema(name)
    },
  }
}
