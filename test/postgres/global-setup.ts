/**
 * The PostgreSQL the `postgres` test project runs against: MNEMO_TEST_DATABASE_URL when set
 * (CI points it at a real PostgreSQL 15 server), otherwise one PGlite instance with pgvector
 * for the whole run, served over its socket so the production `pg` driver path is what is
 * tested (one instance costs seconds and hundreds of MB: both PostgreSQL projects and all
 * their test files share it, each file in its own schema).
 */
import type { TestProject } from 'vitest/node'
import { runShared } from '../helpers/run-shared.js'
import { StatementQueue } from './pglite-statement-queue.js'

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string
    /** Whether the server has pgvector (PGlite does; the CI server may not). */
    databaseVectors: boolean
    /**
     * Connections one engine may open: 1 on PGlite, which is one session shared by turns
     * (see pglite-statement-queue.ts), so a second connection of an engine gains nothing and
     * waits out the first's transactions; a real server gets a normal pool.
     */
    databasePool: number
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env.MNEMO_TEST_DATABASE_URL
  if (external) {
    project.provide('databaseUrl', external)
    project.provide('databaseVectors', process.env.MNEMO_TEST_DATABASE_VECTORS === 'true')
    project.provide('databasePool', 4)
    return async () => undefined
  }
  const { value: url, release } = await runShared('pglite', startPglite)
  project.provide('databaseUrl', url)
  project.provide('databaseVectors', true)
  project.provide('databasePool', 1)
  return release
}

async function startPglite() {
  const { PGlite } = await import('@electric-sql/pglite')
  const { vector } = await import('@electric-sql/pglite-pgvector')
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket')
  const db = await PGlite.create({ extensions: { vector } })
  const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: 32 })
  // The server's own queue interleaves connections' extended-protocol messages (see the
  // queue); its field is private, and a handler reads it when a connection arrives.
  Object.assign(server, { queryQueue: new StatementQueue(db) })
  await server.start()
  return {
    value: `postgres://postgres@${server.getServerConn()}/postgres`,
    async stop() {
      await server.stop()
      await db.close()
    },
  }
}
