/**
 * PGlite with pgvector behind its socket server, in a process of its own, as a stand-in
 * database server with vectors where the PostgreSQL server has none (set up as
 * test/postgres/global-setup.ts does). Prints its URL on stdout, serves until SIGTERM.
 * PGlite is one WASM session: its socket server interleaves the statements of concurrent
 * connections, so services must use MNEMO_DATABASE_POOL=1 against it.
 */
// eslint-disable-next-line no-restricted-imports -- the bench runs its own database server, as the PostgreSQL tests do
import { PGlite } from '@electric-sql/pglite'
import { vector } from '@electric-sql/pglite-pgvector'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'

const db = await PGlite.create({ extensions: { vector } })
const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: 32 })
await server.start()
process.stdout.write(`postgres://postgres@${server.getServerConn()}/postgres\n`)
process.once('SIGTERM', () => {
  void server
    .stop()
    .then(() => db.close())
    .finally(() => process.exit(0))
})
