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
import type { Availability } from './availability.js'
import { CONNECT_TIMEOUT_MS, isUnreachable, type Pool } from './database.js'

/** First and longest wait between two tries for a taken lock, in ms. */
const POLL_MS = { first: 5, max: 100 }

export function createSessionLocks(opts: {
  pool: Pool
  url: string
  schema: string
  poolMax: number
  /** Told when the database goes away; a waiting lock waits for it to come back (bounded). */
  availability: Pick<Availability, 'lost' | 'whenUp'>
}) {
  let own: Promise<pg.Client> | null = null

  /**
   * The connection locks live on, connected on first use and again after it was lost. A
   * lost one is forgotten only if it is still the current one: a late 'end' of an old
   * connection must not orphan a newer one that holds locks (they would never be given
   * back, and every replica would wait for them).
   */
  function connection(): Promise<Pick<pg.Client, 'query'>> {
    if (opts.poolMax === 1) return Promise.resolve(opts.pool)
    if (own) return own
    const client = new pg.Client({
      connectionString: opts.url,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
    })
    const mine = client.connect().then(() => client)
    const lost = () => {
      if (own === mine) own = null
    }
    client.on('error', () => {
      lost()
      void client.end().catch(() => undefined)
    })
    client.on('end', lost)
    mine.catch(lost)
    own = mine
    return mine
  }

  const keyOf = (name: string) => `${opts.schema}:${name}`

  /**
   * An unlock that cannot reach the database has nothing left to give back: the session
   * that held the lock ended with its connection, and the server released it then. Any
   * other failure is the caller's to hear.
   */
  const keptByNobody = (err: unknown): void => {
    if (!isUnreachable(err)) throw err
  }

  /**
   * Runs one statement on the lock connection after those before it: a connection runs one
   * at a time, and pg queues more only with a deprecation warning (to go in pg 9).
   */
  let turn: Promise<unknown> = Promise.resolve()
  function onLockConnection<R>(text: string, values: unknown[]): Promise<pg.QueryResult<R & pg.QueryResultRow>> {
    const run = turn.then(async () => (await connection()).query<R & pg.QueryResultRow>(text, values))
    turn = run.catch(() => undefined)
    return run
  }

  async function tryLock(name: string): Promise<boolean> {
    const { rows } = await onLockConnection<{ ok: boolean }>(
      'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok',
      [keyOf(name)],
    )
    return rows[0]?.ok === true
  }

  /** tryLock; a database that went away and answers again within the wait counts as "not yet". */
  async function tryLockOrWait(name: string): Promise<boolean> {
    try {
      return await tryLock(name)
    } catch (err) {
      if (!isUnreachable(err)) throw err
      opts.availability.lost(err)
      if (!(await opts.availability.whenUp())) throw err
      return false
    }
  }

  async function unlock(name: string): Promise<void> {
    await onLockConnection('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [keyOf(name)])
  }

  return {
    /** Takes `name` when it is free: the function that gives it back, or null when another holds it. */
    async tryTake(name: string): Promise<(() => Promise<void>) | null> {
      return (await tryLock(name)) ? () => unlock(name).catch(keptByNobody) : null
    },
    /**
     * Runs `fn` holding `name`, waiting for it while another process holds it, and while the
     * database is away for as long as availability.ts allows (then its error: `fn` never
     * runs without the lock).
     */
    async run<T>(name: string, fn: () => Promise<T>): Promise<T> {
      for (let wait = POLL_MS.first; !(await tryLockOrWait(name)); wait = Math.min(wait * 2, POLL_MS.max)) {
        await sleep(wait)
      }
      try {
        return await fn()
      } finally {
        // The work is done: a failed unlock must not turn it into an error (a client would
        // retry a write that happened). A lost connection released the lock already.
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
