/**
 * Requests Node's HTTP parser refuses before Fastify sees them (control bytes in the URL,
 * a malformed Content-Length, headers over the size limit, a request that took too long)
 * are answered in the one error shape too, with a request id, instead of Node's bare body.
 */
import { randomUUID } from 'node:crypto'
import { STATUS_CODES } from '../status-codes.js'
import type { Socket } from 'node:net'
import type { FastifyBaseLogger } from 'fastify'
import { ERROR_CODES, type ErrorCode } from '../../shared/errors.js'

function codeOf(err: NodeJS.ErrnoException): { code: ErrorCode; message: string } {
  if (err.code === 'HPE_HEADER_OVERFLOW')
    return { code: 'HEADERS_TOO_LARGE', message: ERROR_CODES.HEADERS_TOO_LARGE.message }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return { code: 'REQUEST_TIMEOUT', message: ERROR_CODES.REQUEST_TIMEOUT.message }
  return {
    code: 'VALIDATION_FAILED',
    message: 'The request is not valid HTTP (its request line, a header or its framing)',
  }
}

/** Fastify's clientErrorHandler: writes the error response and closes the connection. */
export function replyToClientError(err: NodeJS.ErrnoException, socket: Socket, log: FastifyBaseLogger): void {
  // A reset connection has no one to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const { code, message } = codeOf(err)
  const statusCode = ERROR_CODES[code].status
  const requestId = randomUUID()
  const body = JSON.stringify({ statusCode, code, error: STATUS_CODES[statusCode] ?? 'Error', message, requestId })
  log.warn({ code, parserError: err.code, requestId }, 'request refused by the HTTP parser')
  if (!socket.writable) {
    socket.destroy(err)
    return
  }
  socket.write(
    `HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode] ?? ''}\r\nConnection: close\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `x-request-id: ${requestId}\r\n\r\n${body}`,
  )
  socket.destroy()
}
