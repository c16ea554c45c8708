/**
 * What the MCP tools and resources call: the memory operations of one agent. The /mcp endpoint
 * calls the service in-process (createLocalBackend); the stdio entry calls a running
 * mnemo over REST (http-backend.ts). Failures are errors with the service's stable `code`.
 */
import type { z } from 'zod'
import type { AgentGateway } from '../agents/agent-gateway.js'
import type { Actor } from '../shared/agent-id.js'
import type { SearchLogService } from '../search-log/search-log-service.js'
import type { FileWindow } from '../files/file-service.js'
import type { FlushRequest } from '../files/flush-service.js'
import type {
  EntryFields,
  EntryFlushResult,
  EntryWriteResult,
  SupersedeRequest,
  SupersedeResult,
} from '../files/entry-service.js'
import type { Precondition } from '../files/preconditions.js'
import type { Writer } from '../files/provenance.js'
import type { Origin } from '../domain/entry-meta.js'
import type { ForgetResult as ForgetResultSchema } from '../http/schemas/entries.schema.js'
import type { WriteResult } from '../files/write-service.js'
import type { FileDeleteResult, FileList } from '../http/schemas/files.schema.js'
import type { SearchRequest } from '../http/schemas/search.schema.js'
import type { SearchResponse } from '../search/types.js'
import type { Foreground } from '../shared/foreground.js'

/** Whatever POST /search accepts (its zod schema, so new fields reach the tool unchanged). */
export type SearchInput = z.output<typeof SearchRequest> & {
  /** Set by sharedBudget only (not a tool argument). */
  snippetBytes?: number | undefined
}
export type GetInput = { path: string; from?: number | undefined; lines?: number | undefined }
export type WriteInput = { path: string; content: string } & EntryFields
export type FlushInput = Pick<FlushRequest, 'content' | 'entries' | 'sessionId' | 'flushId' | 'key'> & {
  origin?: Origin | undefined
}
/** A fact replaced (POST /supersede); `sha256`: only while the file still has it (If-Match). */
export type SupersedeInput = SupersedeRequest & { sha256?: string | undefined }
/** A whole-file replace, only while the file still has `sha256` (PUT /files with If-Match). */
export type ReplaceInput = { path: string; content: string; sha256: string }
/** A delete, with `sha256` only while the file still has it (DELETE /files with If-Match). */
export type DeleteInput = { path: string; sha256?: string | undefined }
export type FileListing = z.output<typeof FileList>
export type DeleteResult = z.output<typeof FileDeleteResult>
export type ForgetAnswer = z.output<typeof ForgetResultSchema>

export interface MemoryBackend {
  search(input: SearchInput): Promise<SearchResponse>
  /** The agent's indexed files, then the team's (GET /files). */
  list(): Promise<FileListing>
  get(input: GetInput): Promise<FileWindow>
  /** Appends to a memory file (created when missing). */
  write(input: WriteInput): Promise<EntryWriteResult>
  replace(input: ReplaceInput): Promise<WriteResult>
  remove(input: DeleteInput): Promise<DeleteResult>
  flush(input: FlushInput): Promise<EntryFlushResult>
  supersede(input: SupersedeInput): Promise<SupersedeResult>
  /** Removes the flushes of a session from the agent's day files (POST /forget). */
  forget(input: { sessionId: string }): Promise<ForgetAnswer>
  /** Says whether a search's results helped (POST /feedback). */
  feedback(input: FeedbackInput): Promise<{ requestId: string; useful: boolean }>
}

export type FeedbackInput = { requestId: string; useful: boolean; note?: string | undefined }

/** A tool call not run because its request's client had left (nobody reads its answer). */
export class ClientGoneError extends Error {
  constructor() {
    super('The client closed the request; the call did not run')
    this.name = 'ClientGoneError'
  }
}

/**
 * The backend with its calls run one after another, never at once: a batch of tool calls in
 * one /mcp request (the transport dispatches them together) then costs one request's worth
 * of work at a time, like the agent's other requests (admission control, issue 16). Once
 * `gone` is aborted (the client left) calls not yet started fail instead of running.
 */
export function serialBackend(backend: MemoryBackend, gone: AbortSignal): MemoryBackend {
  let tail: Promise<unknown> = Promise.resolve()
  const serial =
    <I, O>(fn: (input: I) => Promise<O>) =>
    (input: I): Promise<O> => {
      const run = tail.then(() => {
        if (gone.aborted) throw new ClientGoneError()
        return fn(input)
      })
      // The next call waits for this one to settle, whether it succeeds or fails.
      tail = run.catch(() => undefined)
      return run
    }
  return {
    search: serial((input: SearchInput) => backend.search(input)),
    list: serial((_: void) => backend.list()),
    get: serial((input: GetInput) => backend.get(input)),
    write: serial((input: WriteInput) => backend.write(input)),
    replace: serial((input: ReplaceInput) => backend.replace(input)),
    remove: serial((input: DeleteInput) => backend.remove(input)),
    flush: serial((input: FlushInput) => backend.flush(input)),
    supersede: serial((input: SupersedeInput) => backend.supersede(input)),
    forget: serial((input: { sessionId: string }) => backend.forget(input)),
    feedback: serial((input: FeedbackInput) => backend.feedback(input)),
  }
}

/** What one /mcp request may answer in all, however many calls its batch holds. */
export type RequestBudget = {
  /** Search results (the most one REST search returns: 100). */
  results: number
  /** Bytes of snippets (MNEMO_SNIPPET_BYTES_PER_SEARCH). */
  snippetBytes: number
  /** Results of a search that does not say (MNEMO_SEARCH_MAX_RESULTS). */
  defaultResults: number
}

/**
 * The backend with the searches of one batch sharing one request's budget: each of the
 * batch's `searches` returns at most its share of the results and of the snippet bytes. A
 * batch of 20 searches asking for 100 results each would otherwise answer 2,000 results and
 * megabytes of JSON, serialised in one piece on the main thread (issue 16); a lone search
 * keeps the whole budget.
 */
export function sharedBudget(backend: MemoryBackend, budget: RequestBudget, searches: number): MemoryBackend {
  const share = Math.max(1, searches)
  const results = Math.max(1, Math.floor(budget.results / share))
  const snippetBytes = Math.floor(budget.snippetBytes / share)
  return {
    ...backend,
    search: (input) =>
      backend.search({
        ...input,
        maxResults: Math.min(input.maxResults ?? budget.defaultResults, results),
        snippetBytes,
      }),
  }
}

export type LocalGateway = Pick<
  AgentGateway,
  'search' | 'listFiles' | 'readFile' | 'append' | 'put' | 'remove' | 'flush' | 'supersede' | 'forget' | 'writerFor'
>

/** The expected hash as a precondition (none: no condition). */
const expecting = (sha256: string | undefined): Precondition => ({
  ifMatch: sha256 === undefined ? null : [sha256.toLowerCase()],
  ifNoneMatch: false,
})

/**
 * The service itself, acting as `who` (an agent, and a user inside it) with what its token may write (`writer`); searches
 * count as in progress for background indexing.
 */
export function createLocalBackend(
  gateway: LocalGateway,
  who: Actor,
  writer: Writer,
  foreground: Pick<Foreground, 'enter'>,
  searchLog: Pick<SearchLogService, 'feedback'>,
): MemoryBackend {
  return {
    async search(input) {
      const exit = foreground.enter()
      try {
        return await gateway.search(who, input)
      } finally {
        exit()
      }
    },
    list: async () => ({ files: await gateway.listFiles(who) }),
    get: (input) => gateway.readFile(who, input.path, input),
    write: ({ path, content, ...fields }) => gateway.append(who, path, content, expecting(undefined), writer, fields),
    replace: (input) => gateway.put(who, input.path, input.content, expecting(input.sha256), writer),
    async remove(input) {
      const result = await gateway.remove(who, input.path, expecting(input.sha256))
      return { path: result.path, deleted: true as const, indexed: result.indexed }
    },
    flush: (input) => gateway.flush(who, input, writer),
    supersede: ({ sha256, ...req }) => gateway.supersede(who, req, expecting(sha256), writer),
    // An agent's tool forgets in its own memory (its user's, acting for one) only, whatever its token.
    forget: (input) => gateway.forget(who, input.sessionId),
    feedback: (input) => searchLog.feedback(who, input),
  }
}
