/**
 * The `postgres-api` project's database, one per test worker (a setup file): the project's
 * files then run two at a time beside the SQLite ones, each worker's one after another on its
 * own PGlite, instead of all of them after the SQLite files on one (npm test spent 40 s with a
 * core idle). MNEMO_TEST_DATABASE_URL, when set, is used instead. The instance lives as long
 * as the worker; its test files share it, each in schemas of its own.
 */
import { externalDatabase, startPglite } from './pglite-server.js'

if (!process.env.MNEMO_WORKER_DATABASE_URL) {
  const database = externalDatabase() ?? (await startPglite())
  process.env.MNEMO_WORKER_DATABASE_URL = database.url
  process.env.MNEMO_WORKER_DATABASE_POOL = String(database.pool)
  process.env.MNEMO_WORKER_DATABASE_VECTORS = String(database.vectors)
}
