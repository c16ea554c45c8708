/**
 * What a database operation does when the database goes away under it (issue 30): the
 * failure is reported to the availability tracker, and the caller gets 503
 * INDEX_UNAVAILABLE — never a raw driver error, never an error that escapes. Nothing is
 * lost: the files are the truth, and the next sync writes what is missing.
 *
 * Operations that may run twice (reads, and index writes that leave the same rows however
 * often they run: a file's chunks replaced, vectors and meta upserted) wait for the
 * database to answer again (availability.ts whenUp, bounded) and run once more, so a
 * restart or a killed backend costs a request a pause instead of an error. Operations that
 * must not run twice (a rebuild's switch, a new rebuild index, a sync claim) fail at once.
 */
import { appError } from '../../shared/errors.js'
import type { Availability } from './availability.js'
import { isUnreachable } from './database.js'

const unavailable = (cause: unknown) =>
  appError('INDEX_UNAVAILABLE', 'The database (MNEMO_DATABASE_URL) cannot be reached; retry later', { cause })

export function createGuard(availability: Pick<Availability, 'lost' | 'whenUp'>) {
  /** Passes `err` on, as 503 INDEX_UNAVAILABLE when it says the database went away. */
  function fail(err: unknown): never {
    if (!isUnreachable(err)) throw err
    availability.lost(err)
    throw unavailable(err)
  }

  return {
    /** Runs `op` once; a lost database is 503 at once. */
    async once<T>(op: () => Promise<T>): Promise<T> {
      try {
        return await op()
      } catch (err) {
        fail(err)
      }
    },
    /** Runs `op`, and once more when the database answers again within the wait. */
    async retrying<T>(op: () => Promise<T>): Promise<T> {
      try {
        return await op()
      } catch (err) {
        if (!isUnreachable(err)) throw err
        availability.lost(err)
        if (!(await availability.whenUp())) throw unavailable(err)
      }
      try {
        return await op()
      } catch (err) {
        fail(err)
      }
    },
    fail,
  }
}

export type Guard = ReturnType<typeof createGuard>
