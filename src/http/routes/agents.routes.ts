/**
 * GET /agents (SPEC §8): every agent and what its index holds; admin token only. GET /users
 * and DELETE /users/:id (SPEC §11): an agent's users, and deleting everything one user has.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { AgentGateway } from '../../agents/agent-gateway.js'
import { isUserId } from '../../shared/agent-id.js'
import { appError } from '../../shared/errors.js'
import { callerOf, requireAdmin } from '../plugins/auth.js'
import { AgentHeaders, errorResponses } from '../schemas/common.schema.js'
import { AgentList, UserDeleteResult, UserList, UserParams } from '../schemas/agents.schema.js'
import { userPathForbidden } from '../../agents/user-scope.js'

export const agentsRoutes: FastifyPluginAsyncZod<{
  gateway: Pick<AgentGateway, 'agents' | 'users' | 'removeUser'>
}> = async (app, opts) => {
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

  app.get('/users', {
    schema: {
      operationId: 'listUsers',
      tags: ['agents'],
      summary: "List an agent's users",
      description:
        'Every user of the agent (X-Mnemo-Agent) with memory — a folder under users/ — with its files, chunks, ' +
        'whether its index is open, and its last sync. Needs the admin token when tokens are configured: an agent ' +
        'token gets 403 AGENT_FORBIDDEN (its requests name their user; they never list the others).',
      headers: AgentHeaders,
      response: { 200: UserList, ...errorResponses(400, 401, 403, 404, 429, 500, 503) },
    },
    preHandler: async (request) => requireAdmin(request),
    handler: async (request) => opts.gateway.users(callerOf(request).agent),
  })

  app.delete('/users/:id', {
    schema: {
      operationId: 'deleteUser',
      tags: ['agents'],
      summary: "Delete a user's memory",
      description:
        'Deletes everything user <id> of the agent has — its files under users/<id>/ and its index — once no ' +
        'request holds it, and answers with the files removed (a user with no memory: none). Requests for the ' +
        'user that come meanwhile wait, then find it empty. The admin token may delete any user; an agent token ' +
        "its agent's users; a request acting for a user (X-Mnemo-User, or a token bound to one) only that " +
        'user: another is 403 USER_FORBIDDEN.',
      params: UserParams,
      headers: AgentHeaders,
      response: { 200: UserDeleteResult, ...errorResponses(400, 401, 403, 404, 409, 429, 500, 503) },
    },
    handler: async (request) => {
      const caller = callerOf(request)
      const { id } = request.params
      if (!isUserId(id)) throw appError('USER_INVALID', 'The user id is not one: a-z, 0-9, "_" and "-", at most 63')
      if (caller.user !== null && caller.user !== id) throw userPathForbidden()
      return opts.gateway.removeUser(caller.agent, id)
    },
  })
}
