/**
 * POST /search → services.search (SPEC §3). A search counts as in progress from the moment
 * its headers are read until its response is sent, and background indexing waits for it
 * (shared/foreground.ts): parsing the body and writing the answer need the main thread too.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { FastifyRequest } from 'fastify'
import type { AgentGateway } from '../../agents/agent-gateway.js'
import type { Foreground } from '../../shared/foreground.js'
import { callerOf } from '../plugins/auth.js'
import { AgentHeaders, errorResponses } from '../schemas/common.schema.js'
import { SearchRequest, SearchResponse } from '../schemas/search.schema.js'

export type SearchRoutesOptions = { gateway: Pick<AgentGateway, 'search'>; foreground: Pick<Foreground, 'enter'> }

export const searchRoutes: FastifyPluginAsyncZod<SearchRoutesOptions> = async (app, opts) => {
  const inProgress = new WeakMap<FastifyRequest, () => void>()
  const done = async (request: FastifyRequest) => {
    inProgress.get(request)?.()
    inProgress.delete(request)
  }
  app.addHook('onRequest', async (request) => {
    inProgress.set(request, opts.foreground.enter())
  })
  app.addHook('onResponse', done)
  app.addHook('onRequestAbort', done)

  app.post('/search', {
    schema: {
      operationId: 'searchMemory',
      tags: ['search'],
      summary: 'Search memory',
      description:
        'Hybrid search: BM25 keyword candidates (Chinese by character bigrams, identifiers whole and by parts; ' +
        'ranked by how many and how rare the query terms a chunk holds) merged with vector candidates, ' +
        'score = 0.7·vectorScore + 0.3·textScore over the sides that ran, then optionally reranked. ' +
        'A failing or slow embedder or reranker degrades the answer (degraded.vector / degraded.rerank) ' +
        'instead of failing it, except for mode "vector". Searches the acting agent\'s memory (X-Mnemo-Agent) and ' +
        'the team memory when one is configured, merged by score; each result says its space. An agent with a token ' +
        "but no memory yet searches the team memory only. A folder replaced after it was opened (the agent's, or the " +
        "team's when it is searched) is refused with 409 PATH_CHANGED.",
      body: SearchRequest,
      headers: AgentHeaders,
      response: {
        200: SearchResponse,
        ...errorResponses(400, 401, 403, 404, 408, 409, 413, 415, 429, 500, 502, 503, 504),
      },
    },
    handler: (request) => opts.gateway.search(callerOf(request), request.body),
  })
}
