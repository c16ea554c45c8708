/**
 * The agent's memory files as MCP resources: `resources/list` names every file GET /files
 * lists, `resources/read` answers one file's whole text. URIs are `mnemo:///<path>`, the
 * path relative to the acting agent's memory (team memory under team/), each segment
 * percent-encoded: mnemo:///MEMORY.md, mnemo:///memory/2026-03-01.md. A read failure is a
 * JSON-RPC error whose message starts with the stable code (FILE_NOT_FOUND: -32002, the
 * MCP "resource not found"; PATH_INVALID and the like: -32602).
 */
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { appError } from '../shared/errors.js'
import { failureOf, type ErrorLog } from './failures.js'
import type { MemoryBackend } from './memory-backend.js'

const RESOURCE_SCHEME = 'mnemo:'

/** MCP's "resource not found" error code (not in the SDK's ErrorCode enum). */
const RESOURCE_NOT_FOUND = -32002

/** The resource URI of a memory path. */
const resourceUri = (path: string): string =>
  `${RESOURCE_SCHEME}///${path.split('/').map(encodeURIComponent).join('/')}`

/** Session transcripts are JSON lines; every other memory file is markdown. */
const mimeTypeOf = (path: string): string => (path.endsWith('.jsonl') ? 'application/jsonl' : 'text/markdown')

/** The memory path a resource URI's path names (percent-decoded once). */
function pathOf(raw: string | string[] | undefined): string {
  const encoded = Array.isArray(raw) ? raw.join('/') : (raw ?? '')
  try {
    return decodeURIComponent(encoded)
  } catch {
    throw appError('PATH_INVALID', 'Invalid path: bad percent-encoding in the resource URI')
  }
}

function errorOf(log: ErrorLog, err: unknown, uri: string): McpError {
  const { code, message } = failureOf(log, err, { resource: uri })
  const rpcCode =
    code === 'FILE_NOT_FOUND' || code === 'AGENT_NOT_FOUND'
      ? RESOURCE_NOT_FOUND
      : code === 'INTERNAL' || code === 'UNAVAILABLE'
        ? ErrorCode.InternalError
        : ErrorCode.InvalidParams
  return new McpError(rpcCode, `${code}: ${message}`)
}

export function registerMemoryResources(server: McpServer, backend: MemoryBackend, log: ErrorLog): void {
  const template = new ResourceTemplate(`${RESOURCE_SCHEME}///{+path}`, {
    list: async () => {
      try {
        const { files } = await backend.list()
        return {
          resources: files.map((f) => ({
            uri: resourceUri(f.path),
            name: f.path,
            mimeType: mimeTypeOf(f.path),
            size: f.sizeBytes,
            annotations: { lastModified: f.mtime },
          })),
        }
      } catch (err) {
        throw errorOf(log, err, `${RESOURCE_SCHEME}///`)
      }
    },
  })
  server.registerResource(
    'memory',
    template,
    {
      title: 'Memory file',
      description: 'A memory file of the acting agent (team memory under team/), as markdown',
      mimeType: 'text/markdown',
    },
    async (uri, variables) => {
      try {
        const file = await backend.get({ path: pathOf(variables.path) })
        return { contents: [{ uri: uri.href, mimeType: mimeTypeOf(file.path), text: file.text }] }
      } catch (err) {
        throw errorOf(log, err, uri.href)
      }
    },
  )
}
