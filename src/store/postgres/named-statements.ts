/**
 * Keyword queries run as named statements, so the server plans each once per connection
 * (planning cost about as much as reading an impact list: ~0.9 ms). That needs a session per
 * connection. Where several connections share one session (PGlite, or a pooler such as
 * PgBouncer in transaction mode), the server answers 42P05 (another connection prepared the
 * name already) or 26000 (the name was prepared on another server connection): the query is
 * then run again unnamed, and names are not used again by this process (logged once). Only
 * for statements outside a transaction: an error would abort one.
 */
import { createHash } from 'node:crypto'
import type pg from 'pg'
import type { Logger } from '../../shared/logger.js'
import type { Queryable } from './database.js'

/** SQLSTATEs of a named statement the session does not hold as this connection expects. */
const SESSION_SHARED = new Set(['42P05', '26000'])

/**
 * Statement texts whose names are remembered: a search's candidate text depends only on its
 * term count, filters and whether it reads texts, so a process uses a few dozen; past this
 * the names are forgotten and hashed again.
 */
const NAMES_KEPT = 1000

export function createNamedStatements(log: Logger) {
  let named = true
  /** Statement names by text: hashing a 3 KB text each time was 3 % of a search's CPU. */
  const names = new Map<string, string>()
  /** A statement's name: the hash of its text, which names its schema. */
  const nameOf = (text: string): string => {
    let name = names.get(text)
    if (name === undefined) {
      if (names.size >= NAMES_KEPT) names.clear()
      name = `mnemo-${createHash('sha1').update(text).digest('hex')}`
      names.set(text, name)
    }
    return name
  }
  return {
    async query<R extends pg.QueryResultRow>(
      db: Queryable,
      text: string,
      values: unknown[],
    ): Promise<pg.QueryResult<R>> {
      if (!named) return db.query<R>(text, values)
      try {
        return await db.query<R>({ name: nameOf(text), text, values })
      } catch (err) {
        if (!SESSION_SHARED.has((err as { code?: string }).code ?? '')) throw err
        named = false
        log.warn(
          { code: (err as { code?: string }).code },
          'the database session is shared between connections: keyword queries are planned each time',
        )
        return db.query<R>(text, values)
      }
    },
  }
}

export type NamedStatements = ReturnType<typeof createNamedStatements>
