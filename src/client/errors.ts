/**
 * What a failed call is: the API's stable error `code` (FILE_NOT_FOUND, PRECONDITION_FAILED,
 * UNAUTHORIZED, …) and HTTP status, or, when no answer came, UNREACHABLE (connection refused
 * or dropped), TIMEOUT (no answer within the client's timeout) or ABORTED (the caller's
 * signal), with status null. `requestId` is the x-request-id the service logged it under.
 */
export type MnemoErrorCode = 'UNREACHABLE' | 'TIMEOUT' | 'ABORTED' | (string & {})

export class MnemoError extends Error {
  override readonly name = 'MnemoError'
  readonly code: MnemoErrorCode
  readonly status: number | null
  readonly requestId: string
  /** Structured details of the API's answer (e.g. validation issues), when it gave some. */
  readonly details: unknown

  constructor(init: {
    code: MnemoErrorCode
    status: number | null
    message: string
    requestId: string
    details?: unknown
    cause?: unknown
  }) {
    super(init.message, { cause: init.cause })
    this.code = init.code
    this.status = init.status
    this.requestId = init.requestId
    this.details = init.details
  }
}

/** The MnemoError of an error answer: its body's code and message when it is mnemo's error shape. */
export async function errorOfResponse(res: Response, requestId: string): Promise<MnemoError> {
  const text = await res.text().catch(() => '')
  let body: { code?: unknown; message?: unknown; requestId?: unknown; details?: unknown } = {}
  try {
    body = JSON.parse(text) as typeof body
  } catch {
    // Not mnemo's JSON (a proxy's page): the status says what there is to say.
  }
  return new MnemoError({
    code: typeof body.code === 'string' ? body.code : `HTTP_${res.status}`,
    status: res.status,
    message: typeof body.message === 'string' ? body.message : text.slice(0, 200) || res.statusText,
    requestId: typeof body.requestId === 'string' ? body.requestId : requestId,
    details: body.details,
  })
}
