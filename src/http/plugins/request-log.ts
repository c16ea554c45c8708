/**
 * One log line per request (method, url, status, ms) instead of Fastify's two; errors are
 * logged by the error handler with their stack.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'
import { agentOf } from './auth.js'

class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(_error: unknown, request: FastifyRequest, reply: FastifyReply): void {
    request.log.info(
      {
        method: request.method,
        url: request.url,
        statusCode: reply.statusCode,
        agent: agentOf(request),
        ms: Math.round(reply.elapsedTime * 100) / 100,
      },
      'request',
    )
  }
}

export function createRequestLogController(): LogController {
  return new RequestLogController()
}
