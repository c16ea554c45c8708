/**
 * A PGlite instance with pgvector served over its socket, so the production `pg` driver
 * path is what is tested. One instance costs seconds and hundreds of MB, so it is shared:
 * by the whole run (global-setup.ts) or by one test worker (worker-database.ts).
 */
export type TestDatabase = {
  url: string
  /** Whether the server has pgvector (PGlite does; a real server may not). */
  vectors: boolean
  /**
   * Connections one engine may open: 1 on PGlite, whose socket server interleaves the
   * messages of concurrent connections' statements (pglite-socket's multiplexer), so
   * queries take turns on one connection; a real server gets a normal pool.
   */
  pool: number
  stop(): Promise<void>
}

/** The server MNEMO_TEST_DATABASE_URL names (CI points it at a real PostgreSQL 15), if any. */
export function externalDatabase(): TestDatabase | null {
  const url = process.env.MNEMO_TEST_DATABASE_URL
  if (!url) return null
  return { url, vectors: process.env.MNEMO_TEST_DATABASE_VECTORS === 'true', pool: 4, stop: async () => undefined }
}

export async function startPglite(): Promise<TestDatabase> {
  const { PGlite } = await import('@electric-sql/pglite')
  const { vector } = await import('@electric-sql/pglite-pgvector')
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket')
  const db = await PGlite.create({ extensions: { vector } })
  const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: 32 })
  await server.start()
  return {
    url: `postgres://postgres@${server.getServerConn()}/postgres`,
    vectors: true,
    pool: 1,
    async stop() {
      await server.stop()
      await db.close()
    },
  }
}
