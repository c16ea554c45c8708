/** GET /agents (SPEC §8): every agent and what its index holds; admin token only. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { AgentGateway } from '../../agents/agent-gateway.js'
import { requireAdmin } from '../plugins/auth.js'
import { errorResponses } from '../schemas/common.schema.js'
import { AgentList } from '../schemas/agents.schema.js'

export const agentsRoutes: FastifyPluginAsyncZod<{ gateway: Pick<AgentGateway, 'agents'> }> = async (app, opts) => {
  app.get('/agents', {
    schema: {
      operationId: 'listAgents',
      tags: ['agents'],
      summary: 'List agents',
      description:
        'main and every agent folder in MNEMO_AGENTS_DIR with its files, chunks, whether its index is open, and ' +
        'its last sync; and the team index. Needs the admin token (MNEMO_API_TOKEN) when tokens are configured: ' +
        'an agent token gets 403 AGENT_FORBIDDEN.',
      response: { 200: AgentList, ...errorResponses(401, 403, 429, 500, 503) },
    },
    preHandler: async (request) => requireAdmin(request),
    handler: async () => opts.gateway.agents(),
  })
}
