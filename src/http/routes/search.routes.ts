/** POST /search → services.search (SPEC §3). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { SearchService } from '../../search/search-service.js'
import { errorResponses } from '../schemas/common.schema.js'
import { SearchRequest, SearchResponse } from '../schemas/search.schema.js'

export const searchRoutes: FastifyPluginAsyncZod<{ search: Pick<SearchService, 'search'> }> = async (app, opts) => {
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
        'instead of failing it, except for mode "vector".',
      body: SearchRequest,
      response: { 200: SearchResponse, ...errorResponses(400, 401, 413, 415, 500, 502, 503, 504) },
    },
    handler: (request) => opts.search.search(request.body),
  })
}
