/**
 * One log line per request (method, url, status, ms) instead of Fastify's two; errors are
 * logged by the error handler with their stack. Orchestrator probes (/health, /ready, every
 * few seconds) are logged at debug. Query parameters that may carry a credential (token,
 * key, …) are logged as "[redacted]": mnemo reads tokens only from the Authorization
 * header, but a client may still put one in a URL.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'
import { agentOf } from './auth.js'

const PROBES = new Set(['/health', '/ready'])
const SECRET_PARAM = /([?&](?:[\w.-]*token|[\w.-]*key|auth|authorization|password|secret)=)[^&#]*/gi

/** The URL as logged: credential-like query values replaced. */
export const loggedUrl = (url: string): string => url.replace(SECRET_PARAM, '$1[redacted]')

class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(_error: unknown, request: FastifyRequest, reply: FastifyReply): void {
    const line = {
      method: request.method,
      url: loggedUrl(request.url),
      statusCode: reply.statusCode,
      agent: agentOf(request),
      ms: Math.round(reply.elapsedTime * 100) / 100,
    }
    const route = request.routeOptions.url
    if (route !== undefined && PROBES.has(route)) request.log.debug(line, 'request')
    else request.log.info(line, 'request')
  }
}

export function createRequestLogController(): LogController {
  return new RequestLogController()
}
