/** GET /health (liveness: the process answers) and GET /ready (index open, first sync done and ok). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { Container } from '../../wiring/container.js'
import { Health, Ready } from '../schemas/health.schema.js'
import { isAuthenticated } from '../plugins/auth.js'

export const healthRoutes: FastifyPluginAsyncZod<{
  /** The main agent's readiness: other agents open on demand and do not hold up readiness. */
  readiness: Container['services']['readiness']
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
        "200 when the main agent's index is open, its first sync has finished without error and its workspace is " +
        'still the folder it opened, 503 otherwise ' +
        '(same body). Other agents open on their first request and do not hold up readiness. Answers ' +
        'orchestrator probes without a token, with `checks` only for a request that carries one. ' +
        '`checks.workspace: read-only` (the service may not write the workspace folder) does not make it unready: ' +
        'reads and search work, writes answer 403 PERMISSION_DENIED.',
      // The token is optional here: with one, the answer has details.
      security: [{ bearerAuth: [] }, {}],
      response: { 200: Ready, 503: Ready },
    },
    handler: async (request, reply) => {
      const ready = await opts.readiness()
      return reply.code(ready.ready ? 200 : 503).send(isAuthenticated(request) ? ready : { ready: ready.ready })
    },
  })
}
