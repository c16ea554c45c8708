/**
 * /mcp (SPEC §9): the Model Context Protocol over Streamable HTTP, stateless: every POST
 * carries one JSON-RPC message (or a batch) and is answered with JSON, by a server made for
 * the request and the agent it acts for (same bearer token and X-Mnemo-Agent rules as REST,
 * checked before it reaches here). GET (a server-sent event stream) and DELETE (ending a
 * session) have nothing to do without sessions: 405.
 */
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import type { AgentGateway } from '../agents/agent-gateway.js'
import { createLocalBackend } from './memory-backend.js'
import { createMemoryMcpServer } from './memory-tools.js'
import type { Foreground } from '../shared/foreground.js'
import { callerOf } from '../http/plugins/auth.js'
import { AgentHeaders, errorResponses } from '../http/schemas/common.schema.js'
import { API_VERSION } from '../http/plugins/swagger.js'

export type McpRoutesOptions = {
  memory: Pick<AgentGateway, 'search' | 'readFile' | 'append' | 'flush'>
  foreground: Pick<Foreground, 'enter'>
  bodyLimitBytes: number
}

const JsonRpcMessage = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number()]).optional(),
    method: z.string().optional(),
    params: z.unknown().optional(),
  })
  .meta({ id: 'JsonRpcMessage' })

const NOT_ALLOWED = {
  jsonrpc: '2.0',
  error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; send requests with POST' },
  id: null,
}

export const mcpRoutes: FastifyPluginAsyncZod<McpRoutesOptions> = async (app, opts) => {
  app.post('/mcp', {
    bodyLimit: opts.bodyLimitBytes,
    schema: {
      operationId: 'callMcp',
      tags: ['mcp'],
      summary: 'MCP over Streamable HTTP (JSON-RPC)',
      description:
        'The Model Context Protocol for agent runtimes: tools memory_search, memory_get, memory_write and ' +
        'memory_flush, acting for the agent of the token and X-Mnemo-Agent. Stateless: send each JSON-RPC ' +
        'message with POST and "Accept: application/json, text/event-stream"; answers are JSON. Protocol errors ' +
        'are JSON-RPC errors; tool failures are results with isError and the error code in their text.',
      headers: AgentHeaders,
      body: z.union([JsonRpcMessage, z.array(JsonRpcMessage)]),
      response: {
        200: z.unknown().describe('The JSON-RPC answer (a response, or a batch of them)'),
        202: z.unknown().describe('Accepted: a notification or a response, which need no answer'),
        ...errorResponses(400, 401, 403, 413, 415),
      },
    },
    handler: async (request, reply) => {
      const { agent } = callerOf(request)
      const backend = createLocalBackend(opts.memory, agent, opts.foreground)
      const server = createMemoryMcpServer(backend, { version: API_VERSION, log: request.log })
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
      // The transport writes the answer itself.
      reply.hijack()
      reply.raw.setHeader('x-request-id', request.id)
      reply.raw.on('close', () => {
        void transport.close()
        void server.close()
      })
      await server.connect(transport)
      await transport.handleRequest(request.raw, reply.raw, request.body)
    },
  })

  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/mcp',
      schema: { hide: true },
      handler: async (_request, reply) => reply.code(405).header('allow', 'POST').send(NOT_ALLOWED),
    })
  }
}
