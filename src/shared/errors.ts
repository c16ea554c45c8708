/**
 * One error table for the whole service (STYLE §13): every error a client can see has a
 * stable `code`, and the HTTP status comes from this table, never from the throw site.
 */
export const ERROR_CODES = {
  VALIDATION_FAILED: { status: 400, message: 'The request is not valid' },
  PATH_INVALID: { status: 400, message: 'The path is not a valid workspace memory path' },
  AGENT_INVALID: {
    status: 400,
    message: 'X-Mnemo-Agent must be an agent id: a-z, 0-9, "_" and "-", starting with a letter or digit, at most 63',
  },
  USER_INVALID: {
    status: 400,
    message: 'X-Mnemo-User must be a user id: a-z, 0-9, "_" and "-", starting with a letter or digit, at most 63',
  },
  ARCHIVE_INVALID: {
    status: 400,
    message: 'The body is not a whole tar archive (empty, not tar, compressed, or cut short); nothing was written',
  },
  ARCHIVE_ENTRY_INVALID: {
    status: 400,
    message:
      'An archive entry is refused (a link, device or other non-file entry, a duplicate name, a name that is ' +
      'both a file and a folder, text that is not UTF-8 or holds NUL, or a folder the deployment does not have); ' +
      'nothing was written',
  },
  UNAUTHORIZED: { status: 401, message: 'Missing or invalid bearer token' },
  PATH_READ_ONLY: {
    status: 403,
    message:
      'The path is a memory source the write API may not change (session transcripts, read-only extra paths, ' +
      "team memory without MNEMO_TEAM_WRITABLE=true, another agent's memory read under MNEMO_AGENT_GRANTS, " +
      'anything but users/<id>/ for a request acting for user <id>)',
  },
  AGENT_FORBIDDEN: { status: 403, message: 'This token may not act for that agent' },
  USER_FORBIDDEN: {
    status: 403,
    message:
      'This request may not act for that user: memory under users/<id>/ is reached only by a request for that user',
  },
  ORIGIN_FORBIDDEN: {
    status: 403,
    message: 'Requests from web pages of another origin are refused without a token (MNEMO_ALLOWED_ORIGINS)',
  },
  PROVENANCE_FORBIDDEN: {
    status: 403,
    message: 'This token may not write entries of that origin (owner: the admin token or MNEMO_OWNER_AGENTS)',
  },
  PERMISSION_DENIED: {
    status: 403,
    message: 'The file system does not let the service read or write this path (permissions, or read-only)',
  },
  FILE_NOT_FOUND: { status: 404, message: 'No such file' },
  ENTRY_NOT_FOUND: { status: 404, message: 'No active entry there (or with that key) to supersede' },
  AGENT_NOT_FOUND: { status: 404, message: 'No such agent' },
  SEARCH_NOT_FOUND: {
    status: 404,
    message: 'No logged search of this agent (and user) has that request id (it may be older than the log keeps)',
  },
  SEARCH_LOG_OFF: { status: 404, message: 'The search log is off (MNEMO_SEARCH_LOG=off)' },
  ROUTE_NOT_FOUND: { status: 404, message: 'No such route' },
  REQUEST_TIMEOUT: {
    status: 408,
    message:
      'The request was not received in time (MNEMO_REQUEST_TIMEOUT_MS), or its body stopped arriving (MNEMO_BODY_IDLE_TIMEOUT_MS)',
  },
  INDEX_BUSY: { status: 409, message: 'A full rebuild is already running' },
  PATH_CHANGED: {
    status: 409,
    message: 'A folder on the path was moved or removed while the request used it; nothing was written',
  },
  AGENT_LIMIT: {
    status: 409,
    message: 'There are as many agents as MNEMO_MAX_AGENTS allows: a new agent cannot be created',
  },
  USER_LIMIT: {
    status: 409,
    message: 'The agent has as many users as MNEMO_MAX_USERS_PER_AGENT allows: a new user cannot be created',
  },
  FOLDER_LIMIT: {
    status: 409,
    message: 'The memory has as many folders as MNEMO_MAX_FOLDERS_PER_AGENT allows: write into an existing folder',
  },
  FLUSH_ID_CONFLICT: {
    status: 409,
    message: 'The flushId was used before for other notes: nothing was appended; use a new flushId for new notes',
  },
  PRECONDITION_FAILED: { status: 412, message: 'The file does not match If-Match / If-None-Match' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is too large' },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    message: 'Send the body as application/json (file writes also take text/markdown or text/plain)',
  },
  HOST_NOT_ALLOWED: {
    status: 421,
    message: 'Requests addressed to this host name are not served without a token (MNEMO_ALLOWED_HOSTS)',
  },
  FILE_TOO_LARGE: { status: 422, message: 'The file is larger than MNEMO_MAX_FILE_BYTES and is not served' },
  AGENT_BUSY: {
    status: 429,
    message:
      'This agent has too many requests in progress (MNEMO_AGENT_MAX_CONCURRENT) or holds its share of the request ' +
      'bodies in flight (MNEMO_MAX_BODY_BYTES_IN_FLIGHT); retry after Retry-After seconds',
  },
  EVENT_STREAMS_LIMIT: {
    status: 429,
    message: 'Too many event streams are open (per agent or in total); close one or retry later',
  },
  HEADERS_TOO_LARGE: { status: 431, message: 'The request headers are larger than the server accepts' },
  INTERNAL: { status: 500, message: 'Internal Server Error' },
  SYNC_FAILED: { status: 500, message: 'The sync failed; GET /index shows the last outcome' },
  PROVIDER_FAILED: { status: 502, message: 'The embedding or rerank provider failed' },
  STORAGE_FULL: { status: 507, message: 'No space left on the device: nothing was written' },
  INDEX_UNAVAILABLE: { status: 503, message: 'The index is not open' },
  SHUTTING_DOWN: { status: 503, message: 'The service is shutting down' },
  OVERLOADED: { status: 503, message: 'The service is overloaded; retry after Retry-After seconds' },
  EMBEDDING_UNAVAILABLE: { status: 503, message: 'No embedding provider is available for vector search' },
  PROVIDER_TIMEOUT: { status: 504, message: 'The embedding or rerank provider did not answer in time' },
} as const satisfies Record<string, { status: number; message: string }>

export type ErrorCode = keyof typeof ERROR_CODES

export class AppError extends Error {
  readonly statusCode: number
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly details?: unknown,
    options?: { cause?: unknown },
  ) {
    super(message ?? ERROR_CODES[code].message, options)
    this.name = 'AppError'
    this.statusCode = ERROR_CODES[code].status
  }
}

export function appError(
  code: ErrorCode,
  message?: string,
  opts: { details?: unknown; cause?: unknown } = {},
): AppError {
  return new AppError(code, message, opts.details, { cause: opts.cause })
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError
}

const FS_ERRORS: Record<string, { code: ErrorCode; message?: string }> = {
  ENOSPC: { code: 'STORAGE_FULL' },
  EDQUOT: { code: 'STORAGE_FULL' },
  // SQLite's own word for it (better-sqlite3 errors carry SQLite's codes).
  SQLITE_FULL: { code: 'STORAGE_FULL', message: 'No space left on the index volume (MNEMO_DATA_DIR)' },
  EACCES: { code: 'PERMISSION_DENIED' },
  EPERM: { code: 'PERMISSION_DENIED' },
  EROFS: { code: 'PERMISSION_DENIED' },
  ENAMETOOLONG: { code: 'PATH_INVALID', message: 'Invalid path: a name in it is too long for the file system' },
}

/**
 * The error code of a file-system failure a client can act on, by its errno (or SQLite's
 * code); undefined for the rest (a 500). A write that failed this way left nothing behind
 * (file-writer.ts); an index write that did was rolled back.
 */
export function codeOfFsError(err: unknown): { code: ErrorCode; message?: string } | undefined {
  const errno = (err as NodeJS.ErrnoException | null)?.code
  if (errno === undefined) return undefined
  return FS_ERRORS[errno]
}
