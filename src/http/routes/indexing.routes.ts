/** POST /index (run a sync or a full re-index) and GET /index (status), SPEC §2 and §5. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { AgentGateway } from '../../agents/agent-gateway.js'
import { callerOf } from '../plugins/auth.js'
import { AgentHeaders, errorResponses } from '../schemas/common.schema.js'
import { IndexQuery, IndexRequest, IndexStatus } from '../schemas/indexing.schema.js'

export const indexingRoutes: FastifyPluginAsyncZod<{
  gateway: Pick<AgentGateway, 'indexStatus' | 'syncIndex'>
}> = async (app, opts) => {
  app.get('/index', {
    schema: {
      operationId: 'getIndexStatus',
      tags: ['index'],
      summary: 'Index status',
      description: "The acting agent's index.",
      headers: AgentHeaders,
      response: { 200: IndexStatus, ...errorResponses(400, 401, 403, 404, 409, 429, 500, 503) },
    },
    handler: async (request) => {
      const caller = callerOf(request)
      return opts.gateway.indexStatus(caller, { admin: caller.principal.role === 'admin' })
    },
  })

  app.post('/index', {
    schema: {
      operationId: 'triggerIndex',
      tags: ['index'],
      summary: 'Run a sync now',
      description:
        "Syncs the acting agent's index. Incremental by default (files whose SHA-256 changed; deleted files are " +
        'dropped). {"full": true} re-chunks ' +
        'every file. Requests during a running sync coalesce into one follow-up sync; a second full re-index ' +
        'while one is running or queued gets 409 INDEX_BUSY. Without ?wait=true the answer is 202 at once. ' +
        'With it, 507 STORAGE_FULL says the index volume ran out of room (the files are unchanged; deleting some ' +
        'frees room and the next sync catches up).',
      querystring: IndexQuery,
      body: IndexRequest,
      headers: AgentHeaders,
      response: {
        200: IndexStatus,
        202: IndexStatus,
        ...errorResponses(400, 401, 403, 404, 408, 409, 413, 415, 429, 500, 503, 507),
      },
    },
    // `POST /index` with no body at all means "defaults"; Fastify hands the validator null.
    preValidation: async (request) => {
      request.body ??= { full: false }
    },
    handler: async (request, reply) => {
      const caller = callerOf(request)
      const wait = request.query.wait === true
      const admin = caller.principal.role === 'admin'
      const out = await opts.gateway.syncIndex(caller, { full: request.body.full, wait, reason: 'api', admin })
      return reply.code(out.done ? 200 : 202).send(out.status)
    },
  })
}
