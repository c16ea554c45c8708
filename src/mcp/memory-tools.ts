/**
 * The MCP server of one agent's memory (SPEC §9): tools memory_search, memory_get,
 * memory_write and memory_flush over a MemoryBackend. Input and output schemas are the REST
 * routes' zod schemas (narrowed to what a model needs); each result is text with
 * `path#Lstart-Lend` citations plus the REST answer as structuredContent. A failure the
 * model can act on (no such file, a bad path) is a tool result with isError and the stable
 * error code; anything unexpected says INTERNAL and stays in the log.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { FileWindow, FileWriteResult, LineWindow } from '../http/schemas/files.schema.js'
import { FlushFields, FlushResult, oneOfContentOrEntries } from '../http/schemas/flush.schema.js'
import { SearchRequest, SearchResponse } from '../http/schemas/search.schema.js'
import { codeOfFsError, ERROR_CODES, isAppError } from '../shared/errors.js'
import { RemoteError } from './http-backend.js'

/** Where unexpected tool failures are logged (the request's logger). */
type ErrorLog = { error(obj: object, msg: string): void }
import { ClientGoneError, type MemoryBackend } from './memory-backend.js'
import { flushText, getText, searchText, writeText } from './tool-text.js'

const SEARCH = `Search your long-term memory: notes saved in earlier sessions (MEMORY.md, daily logs memory/YYYY-MM-DD.md, and team memory under team/ when there is one).
Call it before answering anything that depends on prior work, decisions, dates, people, preferences or to-dos, and whenever the user refers to something from before.
Works for English, Chinese and code identifiers (POSTGRES_URL, qwen-max); use the key words, not a whole sentence.
Returns the best-matching passages, best first, each with a citation path#Lstart-Lend and a score in [0,1]. When nothing scores above minScore it says nothing is remembered: then say you do not know rather than guessing.
Quote the citation when you use a memory; call memory_get with it to read more around a passage.`

const GET = `Read a memory file, or a window of its lines, by the path a memory_search citation gives (memory/2026-03-01.md#L12-L20 → path "memory/2026-03-01.md", from 12, lines 9).
Use it to read the context around a search hit. Returns the lines with a citation; paths are relative to your memory (team memory under team/).`

const WRITE = `Append lines to a memory file (created if missing): MEMORY.md for lasting facts and preferences, memory/YYYY-MM-DD.md for what happened today.
Write short, self-contained markdown lines that will make sense to you later without this conversation. Returns the citation of the appended lines; they are searchable at once.`

const FLUSH = `Save notes before your context is compacted or the session ends, so nothing learned is lost: appends them to today's daily log under a heading with the time and session.
Pass the notes as content (markdown) or entries (one note each). Give a flushId (e.g. "<session>:<turn>") so a retry after an error never saves twice. Returns the citation of the saved lines.`

/** Narrowed REST schemas: strict objects without the ids the OpenAPI components use. */
const SearchInput = z.strictObject(SearchRequest.pick({ query: true, maxResults: true, minScore: true }).shape)
const GetInput = z.strictObject({
  path: z.string().min(1).max(1024).describe('Memory path, e.g. memory/2026-03-01.md or MEMORY.md'),
  ...LineWindow.shape,
})
const WriteInput = z.strictObject({
  path: z.string().min(1).max(1024).describe('MEMORY.md or memory/<anything>.md'),
  content: z.string().min(1).describe('The lines to append (markdown)'),
})
const FlushInput = z
  .strictObject(FlushFields.pick({ content: true, entries: true, sessionId: true, flushId: true }).shape)
  .refine(oneOfContentOrEntries, { message: 'send content or entries, not both' })

/**
 * The code and message of a failure the model may see: one of ours in-process (or a file
 * system failure with a code of its own), or any answer of a remote mnemo (which already
 * hid its internals). Null for anything unexpected.
 */
function knownFailure(err: unknown): { code: string; message: string } | null {
  if (err instanceof RemoteError) return { code: err.code, message: err.message }
  if (err instanceof ClientGoneError) return { code: 'CLIENT_GONE', message: err.message }
  if (isAppError(err)) return err.code === 'INTERNAL' ? null : { code: err.code, message: err.message }
  const fsError = codeOfFsError(err)
  return fsError ? { code: fsError.code, message: fsError.message ?? ERROR_CODES[fsError.code].message } : null
}

async function run<T extends Record<string, unknown>>(
  log: ErrorLog,
  tool: string,
  fn: () => Promise<T>,
  text: (value: T) => string,
): Promise<CallToolResult> {
  try {
    const value = await fn()
    return { content: [{ type: 'text', text: text(value) }], structuredContent: value }
  } catch (err) {
    const failure = knownFailure(err)
    if (!failure) log.error({ err, tool }, 'MCP tool failed')
    const { code, message } = failure ?? { code: 'INTERNAL', message: ERROR_CODES.INTERNAL.message }
    return { isError: true, content: [{ type: 'text', text: `${code}: ${message}` }] }
  }
}

export function createMemoryMcpServer(backend: MemoryBackend, opts: { version: string; log: ErrorLog }): McpServer {
  const server = new McpServer({ name: 'mnemo', version: opts.version })
  const { log } = opts
  server.registerTool(
    'memory_search',
    {
      title: 'Search memory',
      description: SEARCH,
      inputSchema: SearchInput,
      outputSchema: z.object(SearchResponse.shape),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      run(
        log,
        'memory_search',
        () => backend.search(input),
        (res) => searchText(input.query, res),
      ),
  )
  server.registerTool(
    'memory_get',
    {
      title: 'Read memory',
      description: GET,
      inputSchema: GetInput,
      outputSchema: z.object(FileWindow.shape),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) => run(log, 'memory_get', () => backend.get(input), getText),
  )
  server.registerTool(
    'memory_write',
    {
      title: 'Write memory',
      description: WRITE,
      inputSchema: WriteInput,
      outputSchema: z.object(FileWriteResult.shape),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (input) => run(log, 'memory_write', () => backend.write(input), writeText),
  )
  server.registerTool(
    'memory_flush',
    {
      title: 'Save notes before compaction',
      description: FLUSH,
      inputSchema: FlushInput,
      outputSchema: z.object(FlushResult.shape),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (input) => run(log, 'memory_flush', () => backend.flush(input), flushText),
  )
  return server
}
