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
        'BM25 keyword search over FTS5 (Chinese by character bigrams, identifiers whole and by parts). ' +
        'Chunks are ranked by how many and how rare the query terms they contain are; no chunk needs all of them.',
      body: SearchRequest,
      response: { 200: SearchResponse, ...errorResponses(400, 401, 413, 415, 500, 503) },
    },
    handler: (request) => opts.search.search(request.body),
  })
}
