/**
 * A description of an error that is safe to put in a response or status: an error code and
 * the failing system call, never a message that may carry absolute paths or SQL.
 */
import { isAppError } from './errors.js'

export function publicErrorMessage(err: unknown): string {
  if (isAppError(err)) return err.message
  const e = err as { code?: unknown; syscall?: unknown } | null
  if (e && typeof e.code === 'string') {
    return typeof e.syscall === 'string' ? `${e.code} (${e.syscall})` : e.code
  }
  return 'internal error (see the service log)'
}
