/** GET /health (liveness: the process answers) and GET /ready (index open, first sync done and ok). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { IndexingService } from '../../indexing/indexing-service.js'
import { errorResponses } from '../schemas/common.schema.js'
import { Health, Ready } from '../schemas/health.schema.js'

export const healthRoutes: FastifyPluginAsyncZod<{
  indexing: Pick<IndexingService, 'readiness'>
  startedAt: number
}> = async (app, opts) => {
  app.get('/health', {
    schema: {
      operationId: 'getHealth',
      tags: ['ops'],
      summary: 'Liveness',
      security: [],
      response: { 200: Health },
    },
    handler: async () => ({ status: 'ok' as const, uptimeMs: Math.round(performance.now() - opts.startedAt) }),
  })

  app.get('/ready', {
    schema: {
      operationId: 'getReady',
      tags: ['ops'],
      summary: 'Readiness',
      description:
        '200 when the index is open and the first sync has finished without error, 503 otherwise (same body).',
      response: { 200: Ready, 503: Ready, ...errorResponses(401) },
    },
    handler: async (_request, reply) => {
      const ready = opts.indexing.readiness()
      return reply.code(ready.ready ? 200 : 503).send(ready)
    },
  })
}
