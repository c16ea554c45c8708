/**
 * GET /metrics (Prometheus text format) and the request-duration histogram behind it. The
 * route label is the route template (`/files/*`), never the raw URL, so the label set stays
 * bounded; requests no route matched count as `unmatched`. Event streams (GET /events) are
 * left out: their length is how long a client listened, hours, which would swamp the
 * latency of every other request in a sum over routes. The page shows every agent's
 * activity, so it is the admin's (SPEC §8) unless MNEMO_METRICS_PUBLIC=true.
 */
import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import type { Metrics } from '../../metrics/metrics.js'
import { requireAdmin } from './auth.js'
import { errorResponses } from '../schemas/common.schema.js'

export function registerHttpMetrics(app: FastifyInstance, metrics: Metrics, opts: { metricsPublic: boolean }): void {
  app.addHook('onResponse', async (request, reply) => {
    if (String(reply.getHeader('content-type')).startsWith('text/event-stream')) return
    metrics.httpDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    )
  })
  app.get('/metrics', {
    schema: {
      operationId: 'getMetrics',
      tags: ['ops'],
      summary: 'Prometheus metrics',
      description:
        'Request durations by route and status (event streams left out), search stage durations, searches by mode, degraded stages, ' +
        'provider tokens, flushes, the main index (files, chunks, vectors pending, last sync), requests refused by ' +
        'admission control and requests waiting for an agent slot, body bytes in flight, event-loop lag ' +
        'and process metrics. Needs the admin token (an agent token gets 403 AGENT_FORBIDDEN) unless ' +
        'MNEMO_METRICS_PUBLIC=true.',
      produces: ['text/plain'],
      response: {
        200: z.string().describe('Metrics in the Prometheus text exposition format'),
        ...errorResponses(401, 403),
      },
    },
    // With MNEMO_METRICS_PUBLIC the auth hook lets every request through without a caller.
    preHandler: async (request) => (opts.metricsPublic ? undefined : requireAdmin(request)),
    handler: async (_request, reply) => reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  })
}
