/**
 * Request admission (issue 16), in the order the hooks run, all after auth and before a
 * byte of the body is read:
 *  1. a body whose declared Content-Length is over its route's limit → 413 PAYLOAD_TOO_LARGE
 *     at once, unread (Fastify would refuse it too, but only after waiting for a slot);
 *  2. the acting agent's slot: at most MNEMO_AGENT_MAX_CONCURRENT requests of one agent in
 *     progress; the next wait up to MNEMO_AGENT_QUEUE_MS, first come first served, then
 *     429 AGENT_BUSY with Retry-After.
 * The body's bytes in flight and its time limits come next (body-intake.ts). A slot is given
 * back when the response closes — sent, aborted by the client, or a hijacked reply (/mcp)
 * ended — which `close` on the raw response covers in every case, except while the route's
 * handler still runs for a client that left: it is held until the handler ends, so an agent
 * that disconnects at once and asks again cannot have more work in progress than its slots.
 * (A hijacked reply's handler may outlive its response; /mcp stops its tool calls when the
 * response closes instead.) Ops routes and streams (route-classes.ts) take no slot.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Admission } from '../../admission/admission.js'
import { declaredBody } from '../../admission/body-budget.js'
import type { Metrics } from '../../metrics/metrics.js'
import { agentOf } from './auth.js'
import { sendError } from './error-handler.js'
import { takesAgentSlot } from '../route-classes.js'

/** Closes the connection after an answer that leaves the body unread, so it is not drained. */
const refuseUnread = (reply: FastifyReply) => reply.header('connection', 'close')

export function registerAdmission(
  app: FastifyInstance,
  opts: { admission: Admission; metrics: Pick<Metrics, 'rejected'> },
): void {
  const { slots, settings } = opts.admission
  const busyRetryAfterS = Math.max(1, Math.ceil(settings.agentQueueMs / 1000))
  const routeLimit = (request: FastifyRequest) => request.routeOptions.bodyLimit

  app.addHook('onRequest', async (request, reply) => {
    const declared = declaredBody(request.headers)
    if (declared?.kind === 'sized' && declared.bytes > routeLimit(request)) {
      refuseUnread(reply)
      return sendError(reply, request, {
        code: 'PAYLOAD_TOO_LARGE',
        message: `The body (${declared.bytes} bytes) is larger than this route accepts (${routeLimit(request)} bytes)`,
      })
    }
  })

  /** The slot of each request that took one, and whether its handler runs now. */
  const holds = new WeakMap<FastifyRequest, { release: () => void; running: boolean; closed: boolean }>()
  app.addHook('onRoute', (route) => {
    if (!takesAgentSlot(route.url)) return
    const handler = route.handler
    route.handler = async function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      const hold = holds.get(request)
      if (hold) hold.running = true
      try {
        return await handler.call(this, request, reply)
      } finally {
        if (hold) {
          hold.running = false
          if (hold.closed) hold.release()
        }
      }
    }
  })

  app.addHook('onRequest', async (request, reply) => {
    const agent = agentOf(request)
    const route = request.routeOptions.url
    if (agent === undefined || !takesAgentSlot(route)) return
    const ticket = slots.acquire(agent)
    const hold = { release: ticket.release, running: false, closed: false }
    holds.set(request, hold)
    reply.raw.once('close', () => {
      hold.closed = true
      // reply.sent: hijacked (or answered), so the handler's end need not be waited for.
      if (!hold.running || reply.sent) hold.release()
    })
    const outcome = await ticket.ready
    if (outcome === 'granted') return
    // 'cancelled': the client left while waiting; the answer goes nowhere but ends the request.
    if (outcome === 'busy') opts.metrics.rejected('agent_busy')
    reply.header('retry-after', String(busyRetryAfterS))
    return sendError(reply, request, {
      code: 'AGENT_BUSY',
      message:
        `Agent "${agent}" has ${settings.agentMaxConcurrent} requests in progress (MNEMO_AGENT_MAX_CONCURRENT) ` +
        `and this one waited ${settings.agentQueueMs} ms; retry after ${busyRetryAfterS} s`,
    })
  })
}
