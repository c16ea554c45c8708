/**
 * The connection pool and the few helpers every PostgreSQL query uses: transactions, the
 * schema's qualified names and advisory lock keys. int8 columns (ids, counts, read numbers)
 * are read as JavaScript numbers: they stay far below 2^53.
 */
import pg from 'pg'

export type Pool = pg.Pool
export type Client = pg.PoolClient
/** A pool or a client inside a transaction: anything that runs a query. */
export type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>

const INT8 = 20

/** A schema name mnemo may put in SQL text: lower-case letters, digits and `_`. */
export const SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/

/** Longest wait for a new connection to open, in ms: a database that does not answer fails the query. */
export const CONNECT_TIMEOUT_MS = 10_000

export type PoolOptions = {
  url: string
  /** Most connections at once (MNEMO_DATABASE_POOL). */
  max: number
  /** Wait for a free connection before a query fails, in ms. */
  connectTimeoutMs: number
}

/** int8 as a number; every other type as pg parses it. */
const typeParser = ((oid: number, format?: 'text' | 'binary'): unknown =>
  oid === INT8 ? Number : (pg.types.getTypeParser(oid, format) as unknown)) as typeof pg.types.getTypeParser

export function createPool(opts: PoolOptions): Pool {
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.max,
    connectionTimeoutMillis: opts.connectTimeoutMs,
    // Idle connections stay open: with a pool of one, its connection holds session locks.
    idleTimeoutMillis: 0,
    // A server that vanished without closing the connection (a host down, a partition) is
    // found by the kernel's keepalive probes rather than never.
    keepAlive: true,
    types: { getTypeParser: typeParser },
  })
  // An idle connection the server dropped (a restart, a failover) is discarded by the pool;
  // without a listener its error would end the process.
  pool.on('error', () => undefined)
  // A checked-out connection has no pool listener (pg-pool removes it until release): one
  // that breaks between two statements of a transaction would emit an unheard 'error' and
  // end the process. Heard here, the break surfaces where it matters: the client's next
  // query rejects ("not queryable") and the transaction's caller answers 503.
  pool.on('connect', (client) => client.on('error', () => undefined))
  return pool
}

/** Runs `fn` in one transaction on one connection: all of it commits, or none of it. */
export async function inTransaction<T>(pool: Pool, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = await pool.connect()
  let broken: Error | undefined
  try {
    await client.query('BEGIN')
    const result = await fn(client)
    await client.query('COMMIT')
    return result
  } catch (err) {
    await client.query('ROLLBACK').catch((rollbackErr: unknown) => {
      // A connection that cannot roll back is not given to anyone else.
      broken = rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr))
    })
    throw err
  } finally {
    client.release(broken)
  }
}

/** Names of one schema's tables, quoted for SQL text. */
export function tablesOf(schema: string) {
  if (!SCHEMA_PATTERN.test(schema)) throw new Error(`invalid schema name: ${schema}`)
  const t = (name: string) => `"${schema}"."${name}"`
  return {
    schema: `"${schema}"`,
    version: t('schema_version'),
    spaces: t('spaces'),
    indexes: t('indexes'),
    meta: t('meta'),
    files: t('files'),
    deleted: t('deleted_files'),
    chunks: t('chunks'),
    terms: t('terms'),
    postings: t('postings'),
    embeddings: t('embeddings'),
    searches: t('searches'),
    readSeq: t('read_seq'),
    /** The vector table of one dimension (pgvector columns have a fixed size). */
    vectors: (dims: number) => t(`vectors_${Math.trunc(dims)}`),
  }
}

export type Tables = ReturnType<typeof tablesOf>

/**
 * SQL for a 64-bit advisory lock key from the text parameter `$n` (`<schema>:<what>`): the
 * lock names stay parameters, never SQL text.
 */
export const lockKey = (n: number): string => `hashtextextended($${n}::text, 0)`

/** SQLSTATEs and socket errors that mean the database cannot be reached or went away. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
])

/** Whether `err` says the database is unreachable (rather than that a query was wrong). */
export function isUnreachable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null
  if (typeof e?.code === 'string') return UNREACHABLE.has(e.code)
  // pg's own connection failures carry no code.
  const message = typeof e?.message === 'string' ? e.message : ''
  return /Connection terminated|timeout exceeded when trying to connect|connection error|not queryable/i.test(message)
}
