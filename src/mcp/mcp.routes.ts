/**
 * /mcp (SPEC §9): the Model Context Protocol over Streamable HTTP, stateless: every POST
 * carries one JSON-RPC message (or a batch) and is answered with JSON, by a server made for
 * the request and the agent it acts for (same bearer token and X-Mnemo-Agent rules as REST,
 * checked before it reaches here). GET (a server-sent event stream) and DELETE (ending a
 * session) have nothing to do without sessions: 405.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import {
  createLocalBackend,
  serialBackend,
  sharedBudget,
  type LocalGateway,
  type RequestBudget,
} from './memory-backend.js'
import { checkJsonRpcBody } from './json-rpc-body.js'
import type { SearchLogService } from '../search-log/search-log-service.js'
import { loadMcpSdk } from './mcp-sdk.js'
import type { Foreground } from '../shared/foreground.js'
import { callerOf } from '../http/plugins/auth.js'
import { AgentHeaders, ErrorBody, errorResponses } from '../http/schemas/common.schema.js'
import { API_VERSION } from '../http/plugins/swagger.js'

export type McpRoutesOptions = {
  gateway: LocalGateway
  foreground: Pick<Foreground, 'enter'>
  /** Feedback on searches (memory_feedback). */
  searchLog: Pick<SearchLogService, 'feedback'>
  /** Body limit, in bytes (MNEMO_BODY_LIMIT_BYTES). */
  bodyLimitBytes: number
  /** Most JSON-RPC messages in one batch (MNEMO_MCP_MAX_BATCH). */
  maxBatch: number
  /** What one request may answer in all: the searches of a batch share it. */
  budget: RequestBudget
}

/** How many memory_search calls a parsed body holds (at least 1, for a budget's share). */
function searchCalls(body: unknown): number {
  const messages = Array.isArray(body) ? (body as unknown[]) : [body]
  return messages.filter((m) => {
    const msg = m as { method?: unknown; params?: { name?: unknown } } | null
    return msg?.method === 'tools/call' && msg.params?.name === 'memory_search'
  }).length
}

const JsonRpcMessage = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number()]).optional(),
    method: z.string().optional(),
    params: z.unknown().optional(),
  })
  .meta({ id: 'JsonRpcMessage', example: { jsonrpc: '2.0', id: 1, method: 'tools/list' } })

const JsonRpcErrorBody = z
  .object({
    jsonrpc: z.literal('2.0'),
    error: z.object({ code: z.number().int(), message: z.string() }),
    id: z.null(),
  })
  .describe(
    'A JSON-RPC error: the body was not JSON (-32700) or not a valid batch (-32600: empty, repeated ids, more than MNEMO_MCP_MAX_BATCH messages)',
  )
  .meta({ id: 'JsonRpcError' })

const NOT_ALLOWED = {
  jsonrpc: '2.0',
  error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; send requests with POST' },
  id: null,
}

/** application/json, with or without parameters (what the transport accepts). */
const isJson = (contentType: string | undefined) => /^application\/json\s*(;|$)/i.test(contentType ?? '')

export const mcpRoutes: FastifyPluginAsyncZod<McpRoutesOptions> = async (app, opts) => {
  // Bodies reach the handler as text (in this plugin only): JSON-RPC answers a body that is
  // not JSON-RPC with its own errors, not with the REST error shape.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body))

  app.post('/mcp', {
    bodyLimit: opts.bodyLimitBytes,
    // The body schema documents the endpoint; the transport validates the messages.
    validatorCompiler: () => (value: unknown) => ({ value }),
    schema: {
      operationId: 'callMcp',
      tags: ['mcp'],
      summary: 'MCP over Streamable HTTP (JSON-RPC)',
      description:
        'The Model Context Protocol for agent runtimes: tools memory_search (every POST /search field), memory_list, ' +
        'memory_get, memory_write, memory_replace (with the expected sha256), memory_delete and memory_flush, and ' +
        'the memory files as resources (mnemo:///<path>, text/markdown), acting for the agent of the token and ' +
        'X-Mnemo-Agent. Stateless: send each JSON-RPC ' +
        'message with POST and "Accept: application/json, text/event-stream"; answers are JSON. A batch holds at ' +
        'most MNEMO_MCP_MAX_BATCH (20) messages, and its tool calls run one after another. Protocol errors ' +
        'are JSON-RPC errors; tool failures are results with isError and the error code in their text.',
      headers: AgentHeaders,
      consumes: ['application/json'],
      body: z
        .union([JsonRpcMessage, z.array(JsonRpcMessage)])
        .meta({ example: { jsonrpc: '2.0', id: 1, method: 'tools/list' } }),
      response: {
        200: z.unknown().describe('The JSON-RPC answer (a response, or a batch of them)'),
        202: z.unknown().describe('Accepted: a notification or a response, which need no answer'),
        400: z.union([ErrorBody, JsonRpcErrorBody]),
        ...errorResponses(401, 403, 408, 413, 429, 503),
      },
    },
    handler: async (request, reply) => {
      // A body that is not JSON is the transport's to refuse when it is not sent as JSON (415).
      let parsedBody: unknown
      if (isJson(request.headers['content-type'])) {
        const body = checkJsonRpcBody(typeof request.body === 'string' ? request.body : '', opts.maxBatch)
        if (body.kind === 'error') return reply.code(400).send(body.error)
        parsedBody = body.message
      }
      const caller = callerOf(request)
      const { createMemoryMcpServer, StreamableHTTPServerTransport } = await loadMcpSdk()
      const gone = new AbortController()
      const local = createLocalBackend(
        opts.gateway,
        caller,
        opts.gateway.writerFor(caller.principal),
        opts.foreground,
        opts.searchLog,
      )
      const backend = serialBackend(sharedBudget(local, opts.budget, searchCalls(parsedBody)), gone.signal)
      const server = createMemoryMcpServer(backend, { version: API_VERSION, log: request.log })
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
      // The transport writes the answer itself.
      reply.hijack()
      reply.raw.setHeader('x-request-id', request.id)
      reply.raw.on('close', () => {
        gone.abort()
        void transport.close()
        void server.close()
      })
      await server.connect(transport)
      await transport.handleRequest(request.raw, reply.raw, parsedBody)
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
