/**
 * Drops a PostgreSQL schema and everything in it, over a connection of its own: the
 * evaluation, the benchmarks and the PostgreSQL tests each make schemas they delete after.
 * Also measures one, for the benchmarks.
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

/** Bytes a schema's tables take on disk, with their indexes and TOAST (the benchmarks' bytes per chunk). */
export async function schemaBytes(url: string, schema: string): Promise<number> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ bytes: string | null }>(
      `SELECT sum(pg_total_relation_size(c.oid))::text AS bytes FROM pg_class c
         JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'm')`,
      [schema],
    )
    return Number(rows[0]?.bytes ?? 0)
  } finally {
    await client.end()
  }
}
