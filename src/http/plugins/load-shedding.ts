/**
 * The global load shedder (issue 16) on @fastify/under-pressure: every 0.5 s it samples the
 * mean event-loop delay and the heap in use; while either is past its threshold
 * (MNEMO_SHED_EVENT_LOOP_DELAY_MS, MNEMO_SHED_HEAP_FRACTION of the V8 heap limit), or the
 * injected pressure probe says so, new requests get 503 OVERLOADED with Retry-After in the
 * one error shape, before auth or their body is read. Ops routes (/health, /ready, /metrics,
 * docs) are answered as usual, so probes see a live process that refuses work rather than
 * a dead one. Why these thresholds: docs/decisions.md, "Load shedding".
 */
import v8 from 'node:v8'
import underPressure from '@fastify/under-pressure'
import type { FastifyInstance } from 'fastify'
import type { Admission } from '../../admission/admission.js'
import type { Metrics } from '../../metrics/metrics.js'
import type { Logger } from '../../shared/logger.js'
import { isOpsRoute } from '../route-classes.js'
import { sendError } from './error-handler.js'

/** How often load is sampled, in ms: fast enough to react within a second, long enough for a stable mean. */
export const SHED_SAMPLE_MS = 500
/** Seconds a shed client should wait: a few samples for the loop to drain. */
const RETRY_AFTER_S = 2
/** A shedding warning is logged at most this often, in ms (the counter has every refusal). */
const WARN_EVERY_MS = 5000

export async function registerLoadShedding(
  app: FastifyInstance,
  opts: { admission: Admission; metrics: Pick<Metrics, 'rejected'>; log: Logger },
): Promise<void> {
  const { settings, pressureProbe } = opts.admission
  const maxHeapUsedBytes = Math.floor(settings.shedHeapFraction * v8.getHeapStatistics().heap_size_limit)
  let warnedAt = -Infinity
  await app.register(underPressure, {
    sampleInterval: SHED_SAMPLE_MS,
    maxEventLoopDelay: settings.shedEventLoopDelayMs,
    maxHeapUsedBytes,
    ...(pressureProbe && {
      healthCheck: async () => !pressureProbe(),
      healthCheckInterval: SHED_SAMPLE_MS,
    }),
    // A request this does not answer goes on as usual; one it answers goes no further
    // (Fastify runs no later hook nor the handler of a sent reply).
    pressureHandler: (request, reply, type, value) => {
      if (isOpsRoute(request.routeOptions.url)) return
      opts.metrics.rejected('overloaded')
      const now = performance.now()
      if (now - warnedAt >= WARN_EVERY_MS) {
        warnedAt = now
        opts.log.warn({ type, value }, 'overloaded: refusing requests with 503 OVERLOADED')
      }
      void reply.header('retry-after', String(RETRY_AFTER_S))
      void sendError(reply, request, {
        code: 'OVERLOADED',
        message: `The service is overloaded (${type}); retry after ${RETRY_AFTER_S} s`,
      })
    },
  })
}
