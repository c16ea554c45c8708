/** POST /index (run a sync or a full re-index) and GET /index (status), SPEC §2 and §5. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { IndexingService } from '../../indexing/indexing-service.js'
import { errorResponses } from '../schemas/common.schema.js'
import { IndexQuery, IndexRequest, IndexStatus } from '../schemas/indexing.schema.js'

export const indexingRoutes: FastifyPluginAsyncZod<{ indexing: IndexingService }> = async (app, opts) => {
  app.get('/index', {
    schema: {
      operationId: 'getIndexStatus',
      tags: ['index'],
      summary: 'Index status',
      response: { 200: IndexStatus, ...errorResponses(401, 500) },
    },
    handler: async () => opts.indexing.status(),
  })

  app.post('/index', {
    schema: {
      operationId: 'triggerIndex',
      tags: ['index'],
      summary: 'Run a sync now',
      description:
        'Incremental by default (files whose SHA-256 changed; deleted files are dropped). {"full": true} re-chunks ' +
        'every file. Requests during a running sync coalesce into one follow-up sync; a second full re-index ' +
        'while one is running or queued gets 409 INDEX_BUSY. Without ?wait=true the answer is 202 at once.',
      querystring: IndexQuery,
      body: IndexRequest,
      response: { 200: IndexStatus, 202: IndexStatus, ...errorResponses(400, 401, 409, 413, 415, 500) },
    },
    // `POST /index` with no body at all means "defaults"; Fastify hands the validator null.
    preValidation: async (request) => {
      request.body ??= { full: false }
    },
    handler: async (request, reply) => {
      const job = opts.indexing.requestSync({ full: request.body.full, reason: 'api' })
      if (request.query.wait !== true) {
        // Not awaited: the outcome is in GET /index and the log.
        job.catch(() => undefined)
        return reply.code(202).send(opts.indexing.status())
      }
      await job
      return opts.indexing.status()
    },
  })
}
