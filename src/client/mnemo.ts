/**
 * @mnemo/client: a method per mnemo operation, typed by the OpenAPI document
 * (src/generated/api-types.ts). `new Mnemo({ baseUrl, token, agent, user })`; every call
 * carries a request id, has a timeout (30 s until the answer's headers), and is retried on
 * 429/503 after Retry-After (http.ts). Failures are MnemoError with the API's stable `code`.
 * Runs wherever fetch does (Node 22+, browsers); it depends on nothing else.
 */
import { MnemoError } from './errors.js'
import { send, sendJson, type Body, type Call, type Transport } from './http.js'
import { parseFrames } from './sse.js'
import type * as T from './types.js'

export type MnemoOptions = {
  /** Where mnemo listens, e.g. http://127.0.0.1:8787. */
  baseUrl: string
  /** MNEMO_API_TOKEN or an agent token; none when the service has none configured. */
  token?: string
  /** The agent to act for (X-Mnemo-Agent; default: the token's agent, or main). */
  agent?: string
  /** The user inside the agent (X-Mnemo-User). */
  user?: string
  /** Time until an answer's headers arrive, in ms (default 30,000). */
  timeoutMs?: number
  /** Further attempts on 429/503, and on no answer for calls safe to repeat (default 2). */
  retries?: number
  /** The longest Retry-After waited for, in ms (default 10,000); a longer one fails at once. */
  maxRetryWaitMs?: number
  /** A fetch to use instead of the global one (tests, proxies). */
  fetch?: typeof fetch
}

/**
 * A file path as the URL carries it: one segment, slashes encoded too (mnemo takes %2F), so a
 * `..` in it reaches the service, which refuses it (PATH_INVALID), rather than being resolved
 * away by the URL parser into another route.
 */
const filePath = (path: string) => `files/${encodeURIComponent(path)}`

/** One event of GET /events: a change (its type), or the stream's own `ready`, `reset` or `overflow`. */
export type StreamEvent =
  | { event: T.ChangeEvent['type']; id: string | null; data: T.ChangeEvent }
  | { event: 'ready'; id: string | null; data: { agent: string } }
  | { event: 'reset'; id: string | null; data: { reason: string } }
  | { event: 'overflow'; id: string | null; data: Record<string, unknown> }

export class Mnemo {
  private readonly t: Transport
  private readonly options: MnemoOptions

  constructor(options: MnemoOptions) {
    this.options = options
    this.t = {
      baseUrl: options.baseUrl,
      token: options.token,
      agent: options.agent,
      user: options.user,
      timeoutMs: options.timeoutMs ?? 30_000,
      retries: options.retries ?? 2,
      maxRetryWaitMs: options.maxRetryWaitMs ?? 10_000,
      fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    }
  }

  /** The same client acting for another agent or user (undefined keeps the current one, null drops it). */
  as(acting: { agent?: string | null; user?: string | null }): Mnemo {
    const pick = (next: string | null | undefined, current: string | undefined) =>
      next === null ? undefined : (next ?? current)
    const { agent: _agent, user: _user, ...rest } = this.options
    const agent = pick(acting.agent, this.options.agent)
    const user = pick(acting.user, this.options.user)
    return new Mnemo({ ...rest, ...(agent !== undefined && { agent }), ...(user !== undefined && { user }) })
  }

  private json<R>(call: Call): Promise<R> {
    return sendJson<R>(this.t, call)
  }

  /** POST /search: searches are read-only, so they are retried. */
  search(request: T.SearchRequest, opts: { signal?: AbortSignal } = {}): Promise<T.SearchResponse> {
    return this.json({ method: 'POST', path: 'search', json: request, idempotent: true, ...opts })
  }

  /** GET /files/{path}: the file, or `lines` lines of it from line `from`; `sha256` is its If-Match. */
  read(path: string, window: { from?: number; lines?: number } = {}): Promise<T.FileWindow> {
    return this.json({ method: 'GET', path: filePath(path), query: window, idempotent: true })
  }

  /** GET /files: every memory file the index knows. */
  async list(): Promise<T.FileInfo[]> {
    return (await this.json<{ files: T.FileInfo[] }>({ method: 'GET', path: 'files', idempotent: true })).files
  }

  /** PUT /files/{path}: replaces the file; `ifMatch` (its sha256) fails with PRECONDITION_FAILED if it changed. */
  write(path: string, content: string, opts: { ifMatch?: string; ifNoneMatch?: '*' } = {}): Promise<T.FileWriteResult> {
    return this.json({
      method: 'PUT',
      path: filePath(path),
      // No origin: mnemo takes origins on appends (a replace writes the metadata comments it holds).
      json: { content },
      headers: { 'if-match': opts.ifMatch, 'if-none-match': opts.ifNoneMatch },
      // The same content written twice is the same file: safe to repeat only when checked.
      idempotent: opts.ifMatch !== undefined || opts.ifNoneMatch !== undefined,
    })
  }

  /** POST /files/{path}: appends (creating the file); a `key` supersedes the active entry with it. */
  append(path: string, content: string, opts: { key?: string; origin?: T.Origin } = {}): Promise<T.FileWriteResult> {
    return this.json({ method: 'POST', path: filePath(path), json: { content, ...opts }, idempotent: false })
  }

  /** DELETE /files/{path}. */
  delete(path: string, opts: { ifMatch?: string } = {}): Promise<T.FileDeleteResult> {
    return this.json({
      method: 'DELETE',
      path: filePath(path),
      headers: { 'if-match': opts.ifMatch },
      idempotent: true,
    })
  }

  /** POST /flush: notes to today's day file; with a flushId a retry appends nothing twice, so it is retried. */
  flush(request: T.FlushRequest): Promise<T.FlushResult> {
    return this.json({ method: 'POST', path: 'flush', json: request, idempotent: request.flushId !== undefined })
  }

  /** POST /supersede: a new entry replaces an old one (by its lines or its key); the old one stays, marked. */
  supersede(request: T.SupersedeRequest): Promise<T.SupersedeResult> {
    return this.json({ method: 'POST', path: 'supersede', json: request, idempotent: false })
  }

  /** POST /forget: removes every flush entry of a session. */
  forget(sessionId: string, opts: { everyAgent?: boolean } = {}): Promise<T.ForgetResult> {
    return this.json({ method: 'POST', path: 'forget', json: { sessionId, ...opts }, idempotent: true })
  }

  /** GET /index: what the index holds and whether it is syncing. */
  status(): Promise<T.IndexStatus> {
    return this.json({ method: 'GET', path: 'index', idempotent: true })
  }

  /** GET /ready: 200 or 503, both answers (with checks when a token is sent). */
  ready(): Promise<T.Ready> {
    return this.json({ method: 'GET', path: 'ready', idempotent: true, accept: [503] })
  }

  /** POST /index: a sync (or a full rebuild); `wait` answers when it has finished. */
  index(opts: { full?: boolean; wait?: boolean } = {}): Promise<T.IndexStatus> {
    return this.json({
      method: 'POST',
      path: 'index',
      query: { wait: opts.wait },
      json: { full: opts.full ?? false },
      idempotent: true,
    })
  }

  /** POST /feedback: whether a search (by its requestId) helped. */
  feedback(request: T.FeedbackRequest): Promise<T.FeedbackResult> {
    return this.json({ method: 'POST', path: 'feedback', json: request, idempotent: true })
  }

  /** GET /searches: the search log, newest first. */
  async searches(
    filters: { agent?: string; user?: string; since?: string; noResults?: boolean; limit?: number } = {},
  ): Promise<T.LoggedSearch[]> {
    const query = { ...filters, noResults: filters.noResults === undefined ? undefined : String(filters.noResults) }
    return (
      await this.json<{ searches: T.LoggedSearch[] }>({ method: 'GET', path: 'searches', query, idempotent: true })
    ).searches
  }

  /** GET /agents (admin token). */
  agents(): Promise<T.AgentList> {
    return this.json({ method: 'GET', path: 'agents', idempotent: true })
  }

  /** GET /users: the acting agent's users (admin token). */
  users(): Promise<T.UserList> {
    return this.json({ method: 'GET', path: 'users', idempotent: true })
  }

  /** DELETE /users/{id}: a user's memory and index (admin token). */
  deleteUser(id: string): Promise<T.UserDeleteResult> {
    return this.json({ method: 'DELETE', path: `users/${encodeURIComponent(id)}`, idempotent: true })
  }

  /** GET /export: the memory as a tar archive, streamed. */
  async exportArchive(opts: { signal?: AbortSignal } = {}): Promise<ReadableStream<Uint8Array>> {
    const res = await send(this.t, { method: 'GET', path: 'export', idempotent: true, ...opts })
    if (!res.body)
      throw new MnemoError({
        code: 'UNREACHABLE',
        status: res.status,
        message: 'The export had no body',
        requestId: '',
      })
    return res.body
  }

  /** POST /import: a tar archive (bytes, a Blob or a stream); `existing: keep` leaves files that exist. */
  importArchive(archive: Body, opts: { existing?: 'replace' | 'keep' } = {}): Promise<T.ImportResult> {
    return this.json({
      method: 'POST',
      path: 'import',
      query: { existing: opts.existing },
      raw: { body: archive, type: 'application/x-tar' },
      idempotent: true,
    })
  }

  /**
   * GET /events: the acting agent's changes as they happen, for `for await`. Ends when the
   * stream does or `signal` aborts; resume after a drop by passing the last event's id.
   */
  async *events(opts: { lastEventId?: string; signal?: AbortSignal } = {}): AsyncGenerator<StreamEvent> {
    const res = await send(this.t, {
      method: 'GET',
      path: 'events',
      headers: { accept: 'text/event-stream', 'last-event-id': opts.lastEventId },
      idempotent: true,
      ...(opts.signal && { signal: opts.signal }),
    })
    if (!res.body) return
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
    let buffered = ''
    try {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) return
        const { frames, rest } = parseFrames(buffered + value)
        buffered = rest
        for (const frame of frames) {
          const data = JSON.parse(frame.data) as StreamEvent['data']
          yield { event: frame.event, id: frame.id, data } as StreamEvent
        }
      }
    } catch (err) {
      if (opts.signal?.aborted) return
      throw err
    } finally {
      await reader.cancel().catch(() => undefined)
    }
  }
}
