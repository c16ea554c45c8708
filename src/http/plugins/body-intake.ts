/**
 * Request bodies as they arrive (issues 16, 30; docs/decisions.md, "Bytes in flight" and
 * "Slow bodies"). Every body, on every route, is read through a meter (body-meter.ts) that
 * holds its bytes in the budget as they arrive — one agent's share (half of
 * MNEMO_MAX_BODY_BYTES_IN_FLIGHT by default) and the process's — and gives them back when the
 * response closes, however the request ends. A body answers, and its connection closes
 * unread (`Connection: close`, nothing drained):
 *  - 429 AGENT_BUSY with Retry-After, past its agent's share (only that agent waits);
 *  - 503 OVERLOADED with Retry-After, past the process's budget;
 *  - 408 REQUEST_TIMEOUT, when it has not ended MNEMO_REQUEST_TIMEOUT_MS after the request
 *    started, or no byte arrived for MNEMO_BODY_IDLE_TIMEOUT_MS while it was being read.
 * A declared Content-Length that does not fit what is left right now is refused the same way
 * before a byte is read (after the agent's slot, admission.ts), so its client does not send
 * a body that would be refused on the way (with `Expect: 100-continue`, before it is asked
 * for). Any answer sent before its body was read closes the connection too.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Admission } from '../../admission/admission.js'
import { declaredBody, NO_AGENT, type BodyRefusal } from '../../admission/body-budget.js'
import type { Metrics } from '../../metrics/metrics.js'
import { appError, type AppError } from '../../shared/errors.js'
import { meterBody } from '../body-meter.js'
import { agentOf } from './auth.js'
import { replyNotFound, sendError } from './error-handler.js'

/** Seconds a client refused for body bytes should wait: bodies arrive within seconds. */
const BODY_BUDGET_RETRY_AFTER_S = 1

export type BodyIntakeOptions = {
  admission: Pick<Admission, 'bodies'>
  metrics: Pick<Metrics, 'rejected'>
  /** MNEMO_REQUEST_TIMEOUT_MS: the whole body must have arrived this long after the request's start. */
  requestTimeoutMs: number
  /** MNEMO_BODY_IDLE_TIMEOUT_MS: the longest wait for the next byte of a body, in ms. */
  idleTimeoutMs: number
}

export function registerBodyIntake(app: FastifyInstance, opts: BodyIntakeOptions): void {
  const { bodies } = opts.admission
  const agentKey = (request: FastifyRequest) => agentOf(request) ?? NO_AGENT

  /** The refusal of a body past a limit, counted; the answer closes the connection. */
  function refusal(request: FastifyRequest, reply: FastifyReply, which: BodyRefusal): AppError {
    opts.metrics.rejected(which === 'agent' ? 'agent_body_share' : 'body_budget')
    void reply.header('connection', 'close').header('retry-after', String(BODY_BUDGET_RETRY_AFTER_S))
    const retry = `retry after ${BODY_BUDGET_RETRY_AFTER_S} s`
    if (which === 'process') {
      return appError(
        'OVERLOADED',
        `Request bodies in flight would exceed ${bodies.limits.limitBytes} bytes (MNEMO_MAX_BODY_BYTES_IN_FLIGHT); ${retry}`,
      )
    }
    const agent = agentOf(request)
    return appError(
      'AGENT_BUSY',
      `${agent === undefined ? 'Requests acting for no agent' : `Agent "${agent}"`} would hold more than ` +
        `${bodies.limits.agentShareBytes} bytes of request bodies in flight (its share of ` +
        `MNEMO_MAX_BODY_BYTES_IN_FLIGHT); ${retry}`,
    )
  }

  /**
   * The error of a body that did not arrive in time, or null when all of it did (it waits
   * unread behind a slow reader). When the answer already went out (a body nobody reads,
   * being discarded after it), there is no one to tell: the connection just closes.
   */
  function timedOut(request: FastifyRequest, reply: FastifyReply, which: 'deadline' | 'idle'): AppError | null {
    if (request.raw.complete) return null
    if (reply.sent || reply.raw.headersSent) request.raw.destroy()
    else void reply.header('connection', 'close')
    return appError(
      'REQUEST_TIMEOUT',
      which === 'idle'
        ? `No byte of the request body arrived for ${opts.idleTimeoutMs} ms (MNEMO_BODY_IDLE_TIMEOUT_MS)`
        : `The request body did not arrive within ${opts.requestTimeoutMs} ms of the request's start ` +
            '(MNEMO_REQUEST_TIMEOUT_MS)',
    )
  }

  // A route that does not exist has no use for a body: 404 at once, before any of it is read
  // or counted (the onSend hook below closes the connection).
  app.addHook('onRequest', async (request, reply) => {
    if (request.is404 && declaredBody(request.headers)?.kind !== 'none') return replyNotFound(request, reply)
  })

  // After auth and the agent's slot (registered after admission.ts): a declared length that
  // does not fit now is refused before a byte of it is sent. A chunked body is not: nothing
  // says how large it is.
  app.addHook('onRequest', async (request, reply) => {
    const declared = declaredBody(request.headers)
    if (declared?.kind !== 'sized') return
    const which = bodies.refusal(agentKey(request), declared.bytes)
    if (!which) return
    const refused = refusal(request, reply, which)
    return sendError(reply, request, { code: refused.code, message: refused.message })
  })

  // An answer given before its body was read (a 401, a 404, a 415) closes the connection:
  // Node would otherwise read and discard the rest of the body for as long as the client
  // cares to send it, and no timeout of Node's ends that (its request timeout stops looking
  // once the response is sent).
  app.addHook('onSend', async (request, reply) => {
    if (!request.raw.complete && declaredBody(request.headers)?.kind !== 'none')
      void reply.header('connection', 'close')
  })

  // A client that asks before it sends (`Expect: 100-continue`, as curl does for big
  // uploads) hears "continue" only here, once the hooks above let the body in: Node would
  // say it at once, and the client would send a body that is then refused.
  app.server.on('checkContinue', (req, res) => app.server.emit('request', req, res))

  app.addHook('preParsing', async (request, reply, payload) => {
    const declared = declaredBody(request.headers)
    if (!declared || declared.kind === 'none') return payload
    if (request.headers.expect?.toLowerCase() === '100-continue' && !reply.raw.headersSent) reply.raw.writeContinue()
    const account = bodies.open(agentKey(request))
    reply.raw.once('close', () => account.release())
    if (reply.raw.destroyed) account.release()
    return meterBody(payload, {
      // Counted from the request's start (reply.elapsedTime: from when Fastify took it; it
      // times every response, having a logger): time spent waiting for the agent's slot counts.
      deadlineMs: Math.max(0, opts.requestTimeoutMs - reply.elapsedTime),
      idleMs: opts.idleTimeoutMs,
      take: (bytes) => {
        const which = account.take(bytes)
        return which && refusal(request, reply, which)
      },
      timedOut: (which) => timedOut(request, reply, which),
    })
  })
}
