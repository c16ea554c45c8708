/**
 * Advisory locks held across transactions, shared by every replica of one database: a
 * file's lock around its write (two replicas appending to one day file must not both read
 * the old tail), a space's sync claim (one replica scans a space at a time). They live on
 * one connection of their own, so they outlast the pool's transactions; taking one polls
 * pg_try_advisory_lock (a blocking wait would hold up every other lock's release on the
 * same connection). With a pool of one connection (PGlite in the tests, whose socket server
 * cannot interleave two connections' statements) the pool's connection holds them, which
 * the pool never closes while idle.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import type { Pool } from './database.js'

/** First and longest wait between two tries for a taken lock, in ms. */
const POLL_MS = { first: 5, max: 100 }

export function createSessionLocks(opts: { pool: Pool; url: string; schema: string; poolMax: number }) {
  let own: Promise<pg.Client> | null = null

  /** The connection locks live on, connected on first use and again after it was lost. */
  function connection(): Promise<Pick<pg.Client, 'query'>> {
    if (opts.poolMax === 1) return Promise.resolve(opts.pool)
    own ??= (async () => {
      const client = new pg.Client({ connectionString: opts.url })
      const lost = () => (own = null)
      client.on('error', lost)
      client.on('end', lost)
      await client.connect()
      return client
    })()
    own.catch(() => (own = null))
    return own
  }

  const keyOf = (name: string) => `${opts.schema}:${name}`

  async function tryLock(name: string): Promise<boolean> {
    const db = await connection()
    const { rows } = await db.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok', [
      keyOf(name),
    ])
    return rows[0]?.ok === true
  }

  async function unlock(name: string): Promise<void> {
    const db = await connection()
    await db.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [keyOf(name)])
  }

  return {
    /** Takes `name` when it is free: the function that gives it back, or null when another holds it. */
    async tryTake(name: string): Promise<(() => Promise<void>) | null> {
      return (await tryLock(name)) ? () => unlock(name) : null
    },
    /** Runs `fn` holding `name`, waiting for it while another process holds it. */
    async run<T>(name: string, fn: () => Promise<T>): Promise<T> {
      for (let wait = POLL_MS.first; !(await tryLock(name)); wait = Math.min(wait * 2, POLL_MS.max)) await sleep(wait)
      try {
        return await fn()
      } finally {
        await unlock(name).catch(() => undefined)
      }
    },
    async close(): Promise<void> {
      const client = own
      own = null
      await (await client?.catch(() => null))?.end().catch(() => undefined)
    },
  }
}

export type SessionLocks = ReturnType<typeof createSessionLocks>
