/**
 * What /mcp needs from the MCP SDK, imported on the first /mcp request instead of at start:
 * the SDK brings its own ajv, zod-to-json-schema and hono (whose ES import of node:http
 * loads undici, http2 and tls), about a quarter of an empty start on Node 24 (BENCHMARKS.md,
 * "Cold start"). Later requests share the one import.
 */
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { createMemoryMcpServer } from './memory-tools.js'

export type McpSdk = {
  createMemoryMcpServer: typeof createMemoryMcpServer
  StreamableHTTPServerTransport: typeof StreamableHTTPServerTransport
}

let loading: Promise<McpSdk> | undefined

export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    import('./memory-tools.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
  ]).then(([tools, http]) => ({
    createMemoryMcpServer: tools.createMemoryMcpServer,
    StreamableHTTPServerTransport: http.StreamableHTTPServerTransport,
  }))
  return loading
}
