/**
 * OpenAPI 3 generated from the route schemas (never hand-written), Swagger UI at /docs and
 * the document at /openapi.json. The same document is checked in as openapi/openapi.json.
 */
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod'
import { namedWildcard, tidyDocument } from './openapi-tidy.js'
import { swaggerUiLook } from './swagger-theme.js'

export const API_VERSION = '0.1.0'

export async function registerSwagger(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'mnemo',
        version: API_VERSION,
        description:
          'Memory service for AI agents: markdown files on disk are the source of truth; mnemo indexes them ' +
          'into SQLite and searches them (BM25 that works for Chinese, English and code identifiers).',
      },
      tags: [
        { name: 'search', description: 'Search memory' },
        { name: 'files', description: 'Read and write memory files' },
        { name: 'index', description: 'Index status and syncs' },
        { name: 'agents', description: 'Agents and their indexes' },
        { name: 'events', description: 'Change notifications (Server-Sent Events)' },
        { name: 'mcp', description: 'Model Context Protocol endpoint for agent runtimes' },
        { name: 'ops', description: 'Health, readiness and docs' },
      ],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description:
              'Required on every route except /health when MNEMO_API_TOKEN or MNEMO_AGENT_TOKENS is set: the admin ' +
              'token acts for any agent (X-Mnemo-Agent), an agent token for its own agent only. A static token, not ' +
              'OAuth: a refused request is 401 UNAUTHORIZED with WWW-Authenticate: Bearer realm="mnemo", plus ' +
              'error="invalid_token" (or "invalid_request") and error_description when a token was sent',
          },
        },
      },
      // Relative: the document's own server, whatever address it was reached at.
      servers: [{ url: '/', description: 'The mnemo serving this document (default http://127.0.0.1:8787)' }],
      security: [{ bearerAuth: [] }],
    },
    transform: (input) => namedWildcard(jsonSchemaTransform(input)),
    transformObject: (input) => tidyDocument(jsonSchemaTransformObject(input)),
  })
  await app.register(swaggerUi, { routePrefix: '/docs', ...swaggerUiLook })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}
