/**
 * What a failed MCP call may tell the client: the stable code and message of a failure it
 * can act on (no such file, a bad path, a stale sha256), or INTERNAL for anything unexpected,
 * which stays in the log.
 */
import { codeOfFsError, ERROR_CODES, isAppError } from '../shared/errors.js'
import { RemoteError } from './http-backend.js'
import { ClientGoneError } from './memory-backend.js'

/** Where unexpected failures are logged (the request's logger, or stderr for stdio). */
export type ErrorLog = { error(obj: object, msg: string): void }

/**
 * The code and message of a failure the model may see: one of ours in-process (or a file
 * system failure with a code of its own), or any answer of a remote mnemo (which already
 * hid its internals). Null for anything unexpected.
 */
function knownFailure(err: unknown): { code: string; message: string } | null {
  if (err instanceof RemoteError) return { code: err.code, message: err.message }
  if (err instanceof ClientGoneError) return { code: 'CLIENT_GONE', message: err.message }
  if (isAppError(err)) return err.code === 'INTERNAL' ? null : { code: err.code, message: err.message }
  const fsError = codeOfFsError(err)
  return fsError ? { code: fsError.code, message: fsError.message ?? ERROR_CODES[fsError.code].message } : null
}

/** The failure as the client sees it; an unexpected one is logged first. */
export function failureOf(log: ErrorLog, err: unknown, what: object): { code: string; message: string } {
  const failure = knownFailure(err)
  if (failure) return failure
  log.error({ err, ...what }, 'MCP call failed')
  return { code: 'INTERNAL', message: ERROR_CODES.INTERNAL.message }
}
