/**
 * The MCP server of one agent's memory (SPEC §9): tools memory_search, memory_list,
 * memory_get, memory_write, memory_replace, memory_delete, memory_flush, memory_supersede
 * memory_forget (SPEC §11) and memory_feedback (SPEC §12) over a
 * MemoryBackend, and the memory files as resources (memory-resources.ts). Input and output
 * schemas are the REST routes' zod schemas; memory_search takes the whole POST /search
 * request, so a field added there is a tool argument at once. Each result is text with
 * `path#Lstart-Lend` citations plus the REST answer as structuredContent; for memory_search
 * and memory_get, the recall path, structuredContent leaves out what the text already
 * carries (snippets, the file's lines), because clients such as OpenClaw hand the model both:
 * the full answer cost 2.3 times the tokens of the text alone (BENCHMARKS.md). A failure the
 * model can act on (no such file, a bad path, a stale sha256) is a tool result with isError
 * and the stable error code; anything unexpected says INTERNAL and stays in the log.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { FileDeleteResult, FileList, FileWindow, FileWriteResult, LineWindow } from '../http/schemas/files.schema.js'
import { FlushFields, FlushResult, oneOfContentOrEntries } from '../http/schemas/flush.schema.js'
import {
  ForgetRequest,
  ForgetResult,
  KeyField,
  OriginField,
  SupersedeRequest,
  SupersedeResult,
} from '../http/schemas/entries.schema.js'
import { SearchHit, SearchRequest, SearchResponse } from '../http/schemas/search.schema.js'
import type { SearchResponse as SearchResponseValue } from '../search/types.js'
import { FeedbackRequest, FeedbackResult } from '../http/schemas/searches.schema.js'
import { failureOf, type ErrorLog } from './failures.js'
import type { MemoryBackend } from './memory-backend.js'
import { registerMemoryResources } from './memory-resources.js'
import {
  deleteText,
  flushText,
  forgetText,
  getText,
  listText,
  replaceText,
  searchText,
  supersedeText,
  writeText,
} from './tool-text.js'

const SEARCH = `Search your long-term memory: notes saved in earlier sessions (MEMORY.md, daily logs memory/YYYY-MM-DD.md, and team memory under team/ when there is one).
Call it before answering anything that depends on prior work, decisions, dates, people, preferences or to-dos, and whenever the user refers to something from before.
Works for English, Chinese and code identifiers (POSTGRES_URL, qwen-max); use the key words, not a whole sentence.
Returns the best-matching passages, best first, each with a citation path#Lstart-Lend and a score in [0,1]. When nothing scores above minScore it says nothing is remembered: then say you do not know rather than guessing.
Quote the citation when you use a memory; call memory_get with it to read more around a passage.
Optional fields are those of the REST search: pathPrefix (e.g. "memory/" for daily logs only), spaces, mode, maxResults, minScore and the others listed in the schema.`

const GET = `Read a memory file, or a window of its lines, by the path a memory_search citation gives (memory/2026-03-01.md#L12-L20 → path "memory/2026-03-01.md", from 12, lines 9).
Use it to read the context around a search hit. Returns the lines with a citation and the file's sha256 (what memory_replace and memory_delete check); paths are relative to your memory (team memory under team/).`

const LIST = `List your memory files (MEMORY.md, daily logs memory/YYYY-MM-DD.md, team memory under team/) with their lines and size, as the index knows them.
Use it to see which days have notes or to find a file to read with memory_get.`

const WRITE = `Append lines to a memory file (created if missing): MEMORY.md for lasting facts and preferences, memory/YYYY-MM-DD.md for what happened today.
Write short, self-contained markdown lines that will make sense to you later without this conversation. Returns the citation of the appended lines; they are searchable at once.`

const REPLACE = `Replace the whole content of a memory file, e.g. to correct or condense it. Give the sha256 memory_get returned for the file: if the file changed since you read it, nothing is written and the result is PRECONDITION_FAILED (read it again, then retry).
Use memory_write to add lines; use this only to rewrite. Returns the citation of the new content.`

const DELETE = `Delete a memory file (and its passages from search). Give the sha256 memory_get returned to delete it only if it has not changed since you read it (PRECONDITION_FAILED otherwise).
Only for a file that is wrong or obsolete as a whole; it cannot be undone.`

const FLUSH = `Save notes before your context is compacted or the session ends, so nothing learned is lost: appends them to today's daily log under a heading with the time and session.
Pass the notes as content (markdown) or entries (one note each). Give a flushId (e.g. "<session>:<turn>") so a retry after an error never saves twice; a flushId names one set of notes (other notes under a used one: FLUSH_ID_CONFLICT). Returns the citation of the saved lines.`

const SUPERSEDE = `Replace a remembered fact that is no longer true: the old entry stays in memory marked superseded (searches leave it out) and the new one is written right after it, dated today.
Name the old entry by the citation memory_search gave (path, startLine, endLine), or by its key. Give the file's sha256 from memory_get to write only if it has not changed since (PRECONDITION_FAILED otherwise).
Prefer this to memory_write when a preference, decision or fact changed; give a key (e.g. "reply-style") to a fact that will change again, and later writes with that key supersede it by themselves.`

const FEEDBACK = `Say whether a memory_search helped (useful) and, if not, what was missing (note), by the search id memory_search answered with. It improves what is remembered; it changes no memory.`

const FORGET = `Remove from memory everything saved by memory_flush in one session (its daily-log entries), e.g. when the user asks you to forget that conversation. It cannot be undone.`

/**
 * A tool input's check by the REST schema `rest` it copies the fields of: rules across fields,
 * if `rest` has any, are its refinements, so once every field is valid `rest` checks the value
 * (`of` it: the fields it knows) again and its custom issues are the tool's (type issues are
 * not: a field the REST schema transforms no longer has its input type).
 */
function restRules<T>(rest: z.ZodType, of: (value: T) => unknown = (value) => value) {
  return (value: T, ctx: z.RefinementCtx) => {
    const whole = rest.safeParse(of(value))
    if (whole.success) return
    for (const issue of whole.error.issues) {
      if (issue.code === 'custom') ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message })
    }
  }
}

/**
 * The whole POST /search request, its fields as a new strict object (the component id of
 * SearchRequest would make the listed schema a bare $ref).
 */
const SearchInput = z.strictObject(SearchRequest.shape).superRefine(restRules(SearchRequest))
const Sha256 = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'a SHA-256 hash: 64 hex digits')
  .describe("The file's SHA-256 as memory_get returned it (its content must still have it)")
const MemoryPath = z.string().min(1).max(1024)
const GetInput = z.strictObject({
  path: z.string().min(1).max(1024).describe('Memory path, e.g. memory/2026-03-01.md or MEMORY.md'),
  ...LineWindow.shape,
})
const WriteInput = z.strictObject({
  path: MemoryPath.describe('MEMORY.md or memory/<anything>.md'),
  content: z.string().min(1).describe('The lines to append (markdown)'),
  origin: OriginField.optional(),
  key: KeyField.optional(),
})
const ReplaceInput = z.strictObject({
  path: MemoryPath.describe('The file to rewrite, e.g. MEMORY.md'),
  content: z.string().describe('The whole new content (markdown)'),
  sha256: Sha256,
})
const DeleteInput = z.strictObject({
  path: MemoryPath.describe('The file to delete, e.g. memory/2026-03-01.md'),
  sha256: Sha256.optional(),
})
const FlushInput = z
  .strictObject(
    FlushFields.pick({ content: true, entries: true, sessionId: true, flushId: true, origin: true, key: true }).shape,
  )
  .refine(oneOfContentOrEntries, { message: 'send content or entries, not both' })

/** POST /supersede's fields (its cross-field rules checked by the REST schema), and the file's sha256. */
const SupersedeInput = z
  .strictObject({ ...SupersedeRequest.shape, sha256: Sha256.optional() })
  .superRefine(restRules(SupersedeRequest, ({ sha256: _sha256, ...req }: { sha256?: string | undefined }) => req))

/**
 * memory_search's structured result: where each passage is and how it scored, without the
 * snippets the text gives (REST's POST /search answers with everything).
 */
const SearchOutput = z.object({
  results: z.array(
    SearchHit.pick({ path: true, startLine: true, endLine: true, score: true, space: true, status: true }),
  ),
  ...SearchResponse.pick({ mode: true, requestId: true, abstained: true, degradedCodes: true }).shape,
})
/** memory_get's structured result: the window and the file's sha256, without the lines the text gives. */
const GetOutput = FileWindow.omit({ text: true })

const searchOutput = (res: SearchResponseValue): z.infer<typeof SearchOutput> => ({
  results: res.results.map(({ path, startLine, endLine, score, space, status }) => ({
    path,
    startLine,
    endLine,
    score,
    space,
    status,
  })),
  mode: res.mode,
  ...(res.requestId !== undefined && { requestId: res.requestId }),
  ...(res.abstained && { abstained: res.abstained }),
  ...(res.degradedCodes && { degradedCodes: res.degradedCodes }),
})

async function run<T extends Record<string, unknown>>(
  log: ErrorLog,
  tool: string,
  fn: () => Promise<T>,
  text: (value: T) => string,
  structured: (value: T) => Record<string, unknown> = (value) => value,
): Promise<CallToolResult> {
  try {
    const value = await fn()
    return { content: [{ type: 'text', text: text(value) }], structuredContent: structured(value) }
  } catch (err) {
    const { code, message } = failureOf(log, err, { tool })
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
      outputSchema: SearchOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      run(
        log,
        'memory_search',
        () => backend.search(input),
        (res) => searchText(input.query, res),
        searchOutput,
      ),
  )
  server.registerTool(
    'memory_list',
    {
      title: 'List memory files',
      description: LIST,
      inputSchema: z.strictObject({}),
      outputSchema: z.object(FileList.shape),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () => run(log, 'memory_list', () => backend.list(), listText),
  )
  server.registerTool(
    'memory_get',
    {
      title: 'Read memory',
      description: GET,
      inputSchema: GetInput,
      outputSchema: GetOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      run(
        log,
        'memory_get',
        () => backend.get(input),
        getText,
        ({ text: _text, ...window }) => window,
      ),
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
    'memory_replace',
    {
      title: 'Rewrite a memory file',
      description: REPLACE,
      inputSchema: ReplaceInput,
      outputSchema: z.object(FileWriteResult.shape),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (input) => run(log, 'memory_replace', () => backend.replace(input), replaceText),
  )
  server.registerTool(
    'memory_delete',
    {
      title: 'Delete a memory file',
      description: DELETE,
      inputSchema: DeleteInput,
      outputSchema: z.object(FileDeleteResult.shape),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (input) => run(log, 'memory_delete', () => backend.remove(input), deleteText),
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
  server.registerTool(
    'memory_supersede',
    {
      title: 'Replace a fact',
      description: SUPERSEDE,
      inputSchema: SupersedeInput,
      outputSchema: z.object(SupersedeResult.shape),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (input) => run(log, 'memory_supersede', () => backend.supersede(input), supersedeText),
  )
  server.registerTool(
    'memory_forget',
    {
      title: 'Forget a session',
      description: FORGET,
      inputSchema: z.strictObject({ sessionId: ForgetRequest.shape.sessionId }),
      outputSchema: z.object(ForgetResult.shape),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (input) => run(log, 'memory_forget', () => backend.forget(input), forgetText),
  )
  server.registerTool(
    'memory_feedback',
    {
      title: 'Say whether a search helped',
      description: FEEDBACK,
      inputSchema: z.strictObject(FeedbackRequest.shape),
      outputSchema: z.object(FeedbackResult.shape),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (input) =>
      run(
        log,
        'memory_feedback',
        () => backend.feedback(input),
        (res) => `Noted: search ${res.requestId} ${res.useful ? 'helped' : 'did not help'}.`,
      ),
  )
  registerMemoryResources(server, backend, log)
  return server
}
