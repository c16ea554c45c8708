/**
 * The PostgreSQL the `postgres` test project runs against: MNEMO_TEST_DATABASE_URL when set,
 * otherwise one PGlite for the whole run (pglite-server.ts): test files share it, one at a
 * time, each in its own schema.
 */
import type { TestProject } from 'vitest/node'
import { externalDatabase, startPglite } from './pglite-server.js'

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string
    /** TestDatabase.vectors */
    databaseVectors: boolean
    /** TestDatabase.pool */
    databasePool: number
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const database = externalDatabase() ?? (await startPglite())
  project.provide('databaseUrl', database.url)
  project.provide('databaseVectors', database.vectors)
  project.provide('databasePool', database.pool)
  return () => database.stop()
}
