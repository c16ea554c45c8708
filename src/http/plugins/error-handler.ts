/**
 * Maps every error to the one error body `{statusCode, code, error, message, requestId}`
 * (SPEC §2): our AppErrors by their code, file-system failures a client can act on (a full
 * disk, permissions, a name too long) by their errno, Fastify's own errors (validation, body
 * limit, bad JSON, media type) to stable codes, anything else to a 500 whose details stay in
 * the log.
 */
import { STATUS_CODES } from '../status-codes.js'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { codeOfFsError, ERROR_CODES, isAppError, type ErrorCode } from '../../shared/errors.js'

type Mapped = { code: ErrorCode; message: string; details?: unknown }

/**
 * Seconds an OVERLOADED answer asks a client to wait when its cause set none (an agent
 * waiting for a place among the open ones): the code's message promises a Retry-After.
 */
const OVERLOADED_RETRY_AFTER_S = 1

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'VALIDATION_FAILED',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'VALIDATION_FAILED',
  FST_ERR_CTP_INVALID_JSON_BODY: 'VALIDATION_FAILED',
  FST_ERR_BAD_URL: 'PATH_INVALID',
}

type ValidationIssue = { instancePath?: string; message?: string; params?: { issue?: { path?: PropertyKey[] } } }

function validationDetails(err: FastifyError): { path: string; message: string }[] {
  return (err.validation as ValidationIssue[]).map((v) => ({
    path: v.params?.issue?.path?.map(String).join('.') ?? v.instancePath?.replace(/^\//, '').replaceAll('/', '.') ?? '',
    message: v.message ?? 'invalid',
  }))
}

function mapError(err: FastifyError): Mapped {
  if (isAppError(err)) return { code: err.code, message: err.message, details: err.details }
  // Errno messages name absolute paths: only the code's own message goes out.
  const fsError = codeOfFsError(err)
  if (fsError) return { code: fsError.code, message: fsError.message ?? ERROR_CODES[fsError.code].message }
  if (err.validation) {
    const details = validationDetails(err)
    const where = err.validationContext ?? 'request'
    const first = details[0]
    const message = first
      ? `Invalid ${where}: ${first.path ? `${first.path}: ` : ''}${first.message}`
      : `Invalid ${where}`
    return { code: 'VALIDATION_FAILED', message, details }
  }
  const known = err.code ? FASTIFY_CODES[err.code] : undefined
  if (known) return { code: known, message: err.message }
  if (err instanceof SyntaxError) return { code: 'VALIDATION_FAILED', message: 'The body is not valid JSON' }
  const status = err.statusCode ?? 500
  if (status >= 400 && status < 500) return { code: 'VALIDATION_FAILED', message: err.message }
  return { code: 'INTERNAL', message: ERROR_CODES.INTERNAL.message }
}

export function sendError(reply: FastifyReply, request: FastifyRequest, mapped: Mapped, statusOverride?: number) {
  const statusCode = statusOverride ?? ERROR_CODES[mapped.code].status
  if (mapped.code === 'OVERLOADED' && !reply.hasHeader('retry-after')) {
    void reply.header('retry-after', String(OVERLOADED_RETRY_AFTER_S))
  }
  return reply.code(statusCode).send({
    statusCode,
    code: mapped.code,
    error: STATUS_CODES[statusCode] ?? 'Error',
    message: mapped.message,
    requestId: String(request.id),
    ...(mapped.details === undefined ? {} : { details: mapped.details }),
  })
}

/**
 * Logs and answers any error in the one error shape: 5xx at error level with the stack, but a
 * database found away (INDEX_UNAVAILABLE) as a warning without one: every request answers so
 * until it is back, and the engine logs the outage itself, once.
 */
export function replyWithError(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const mapped = mapError(err)
  const status = ERROR_CODES[mapped.code].status
  if (status >= 500 && mapped.code !== 'INDEX_UNAVAILABLE') request.log.error({ err }, 'request failed')
  else request.log.warn({ code: mapped.code, message: mapped.message }, 'request rejected')
  return sendError(reply, request, mapped)
}

/** Answers 404 ROUTE_NOT_FOUND for a request no route takes. */
export const replyNotFound = (request: FastifyRequest, reply: FastifyReply) =>
  sendError(reply, request, {
    code: 'ROUTE_NOT_FOUND',
    message: `No route ${request.method} ${request.url.split('?')[0]}`,
  })

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler(replyWithError)
  app.setNotFoundHandler(replyNotFound)
}
