/**
 * Drops a PostgreSQL schema and everything in it, over a connection of its own: the
 * evaluation, the benchmarks and the PostgreSQL tests each make schemas they delete after.
 */
// eslint-disable-next-line no-restricted-imports -- tooling outside src/ that cleans up the schemas it made
import pg from 'pg'

export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  } finally {
    await client.end()
  }
}
