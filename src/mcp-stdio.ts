/**
 * `mnemo mcp`: the MCP tools over stdio for clients that launch tools as processes. It
 * holds no index: every call goes to a running mnemo over REST (MNEMO_URL, MNEMO_API_TOKEN,
 * MNEMO_AGENT). stdout carries the protocol only; problems go to stderr. A process entry
 * like main.ts.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { loadClientConfig } from './config/client-config.js'
import { ConfigError } from './shared/config-error.js'
import { API_VERSION } from './http/plugins/swagger.js'
import { createHttpBackend } from './mcp/http-backend.js'
import { createMemoryMcpServer } from './mcp/memory-tools.js'

const log = {
  error(obj: object, msg: string): void {
    const err = (obj as { err?: unknown }).err
    process.stderr.write(`mnemo mcp: ${msg}${err instanceof Error ? `: ${err.message}` : ''}\n`)
  },
}

let config
try {
  config = loadClientConfig(process.env, process.cwd())
} catch (err) {
  process.stderr.write(`mnemo mcp: ${err instanceof ConfigError ? err.message : String(err)}\n`)
  process.exit(1)
}
const server = createMemoryMcpServer(createHttpBackend(config), { version: API_VERSION, log })
await server.connect(new StdioServerTransport())
// The client closing our stdin ends the session.
process.stdin.on('end', () => void server.close().then(() => process.exit(0)))
