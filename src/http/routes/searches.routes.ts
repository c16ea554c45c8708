/** GET /searches and POST /feedback (SPEC §12): what agents searched for, and whether it helped. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { AGENT_HEADER } from '../../shared/agent-id.js'
import type { SearchLogService } from '../../search-log/search-log-service.js'
import { callerOf } from '../plugins/auth.js'
import { AgentHeaders, errorResponses } from '../schemas/common.schema.js'
import { FeedbackRequest, FeedbackResult, SearchesQuery, SearchList } from '../schemas/searches.schema.js'

export const searchesRoutes: FastifyPluginAsyncZod<{ searchLog: SearchLogService }> = async (app, opts) => {
  app.get('/searches', {
    schema: {
      operationId: 'listSearches',
      tags: ['search'],
      summary: 'What agents searched for',
      description:
        'The search log, newest first: per search its time, agent, user, query, mode, results, best score ' +
        '(or the best one minScore cut), whether it abstained, latency, degraded stages, request id and any ' +
        'feedback. The admin token without X-Mnemo-Agent reads every agent (filter with agent, user); anyone else ' +
        'reads the agent it acts for, and only the searches made for the user it acts for (X-Mnemo-User), or for ' +
        'no user without one: another agent is 403 AGENT_FORBIDDEN, another user 403 USER_FORBIDDEN. Kept for ' +
        'MNEMO_SEARCH_LOG_DAYS (30) days and the newest MNEMO_SEARCH_LOG_MAX_PER_AGENT (10,000) per agent; 404 ' +
        'SEARCH_LOG_OFF with MNEMO_SEARCH_LOG=off.',
      querystring: SearchesQuery,
      headers: AgentHeaders,
      response: { 200: SearchList, ...errorResponses(400, 401, 403, 404, 429, 500, 503) },
    },
    handler: async (request) => {
      const caller = callerOf(request)
      const { agent, user, since, noResults, limit } = request.query
      return opts.searchLog.list(
        {
          admin: caller.principal.role === 'admin',
          agentNamed: request.headers[AGENT_HEADER] !== undefined,
          agent: caller.agent,
          user: caller.user,
        },
        {
          limit,
          ...(agent !== undefined && { agent }),
          ...(user !== undefined && { user }),
          ...(since !== undefined && { sinceMs: Date.parse(since) }),
          ...(noResults !== undefined && { noResults }),
        },
      )
    },
  })

  app.post('/feedback', {
    schema: {
      operationId: 'giveFeedback',
      tags: ['search'],
      summary: 'Say whether a search helped',
      description:
        'Records whether the results of a search helped (and why not, in note), by the request id of the search ' +
        '(its x-request-id header, and requestId in its answer). Only the agent (and user) that searched may: ' +
        'any other request id is 404 SEARCH_NOT_FOUND. Given again, the last word counts.',
      body: FeedbackRequest,
      headers: AgentHeaders,
      response: { 200: FeedbackResult, ...errorResponses(400, 401, 403, 404, 413, 415, 429, 500, 503) },
    },
    handler: async (request) => opts.searchLog.feedback(callerOf(request), request.body),
  })
}
