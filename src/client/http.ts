/**
 * One call to mnemo, with what every call needs: the token and whom it acts for as headers, a
 * request id (x-request-id, kept across retries so the service's log joins them), a timeout,
 * and retries. 429 and 503 are answered by mnemo's admission before any work is done, so they
 * are retried for every call that can send its body again, after the Retry-After the answer
 * gives (or a backoff). A call that got no answer is retried only when repeating it is
 * harmless (reads, searches, flushes with a flushId). Everything else fails as a MnemoError.
 */
import { MnemoError, errorOfResponse } from './errors.js'

/** What fetch takes as a body (BodyInit, named without the DOM library). */
export type Body = NonNullable<RequestInit['body']>

export type Transport = {
  baseUrl: string
  token: string | undefined
  agent: string | undefined
  user: string | undefined
  /** Time a call may take until the answer's headers arrive, in ms. */
  timeoutMs: number
  /** Further attempts after the first. */
  retries: number
  /** The longest Retry-After honoured, in ms; a longer one fails at once. */
  maxRetryWaitMs: number
  fetch: typeof fetch
}

export type Call = {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  path: string
  query?: Record<string, string | number | boolean | undefined>
  /** A JSON body, or raw bytes with their content type. */
  json?: unknown
  raw?: { body: Body; type: string }
  headers?: Record<string, string | undefined>
  /** Whether the call may be repeated after no answer came (it changes nothing twice). */
  idempotent: boolean
  /** Statuses that are answers, not errors (GET /ready's 503). */
  accept?: number[]
  signal?: AbortSignal
}

/** First backoff without a Retry-After, in ms, doubling per attempt. */
const BACKOFF_MS = 250

/** A request id the service accepts (letters, digits, `-`), made where crypto.randomUUID is not (plain http pages). */
export function newRequestId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
}

/** Retry-After as ms: seconds, or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const at = Date.parse(value)
  return Number.isNaN(at) ? null : Math.max(0, at - now)
}

export function urlOf(t: Transport, call: Call): string {
  const url = new URL(call.path, t.baseUrl.endsWith('/') ? t.baseUrl : `${t.baseUrl}/`)
  for (const [k, v] of Object.entries(call.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v))
  return url.href
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason as Error)), { once: true })
  })

/** Sends a call; the answer once its headers are in (the body is the caller's to read). */
export async function send(t: Transport, call: Call): Promise<Response> {
  const requestId = newRequestId()
  const headers: Record<string, string> = { 'x-request-id': requestId }
  if (t.token) headers.authorization = `Bearer ${t.token}`
  if (t.agent) headers['x-mnemo-agent'] = t.agent
  if (t.user) headers['x-mnemo-user'] = t.user
  let body: Body | undefined
  if (call.json !== undefined) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(call.json)
  } else if (call.raw) {
    headers['content-type'] = call.raw.type
    body = call.raw.body
  }
  for (const [k, v] of Object.entries(call.headers ?? {})) if (v !== undefined) headers[k] = v
  // A stream can be sent once only.
  const replayable = !(body instanceof ReadableStream)
  for (let attempt = 0; ; attempt++) {
    const timeout = new AbortController()
    const timer = setTimeout(() => timeout.abort(), t.timeoutMs)
    const signal = call.signal ? AbortSignal.any([call.signal, timeout.signal]) : timeout.signal
    let res: Response
    try {
      res = await t.fetch(urlOf(t, call), {
        method: call.method,
        headers,
        body,
        signal,
        // Node's fetch sends a stream body only with duplex 'half' (not yet in its RequestInit type).
        ...(body instanceof ReadableStream && { duplex: 'half' }),
      })
    } catch (err) {
      const code = call.signal?.aborted ? 'ABORTED' : timeout.signal.aborted ? 'TIMEOUT' : 'UNREACHABLE'
      if (code !== 'ABORTED' && call.idempotent && replayable && attempt < t.retries) {
        await sleep(BACKOFF_MS * 2 ** attempt, call.signal)
        continue
      }
      const message =
        code === 'TIMEOUT'
          ? `No answer from ${t.baseUrl} within ${t.timeoutMs} ms`
          : code === 'ABORTED'
            ? 'The call was aborted'
            : `Could not reach mnemo at ${t.baseUrl}: ${err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err)}`
      throw new MnemoError({ code, status: null, message, requestId, cause: err })
    } finally {
      clearTimeout(timer)
    }
    if (res.ok || call.accept?.includes(res.status)) return res
    if ((res.status === 429 || res.status === 503) && replayable && attempt < t.retries) {
      const wait = retryAfterMs(res.headers.get('retry-after')) ?? BACKOFF_MS * 2 ** attempt
      if (wait <= t.maxRetryWaitMs) {
        await res.body?.cancel()
        await sleep(wait, call.signal)
        continue
      }
    }
    throw await errorOfResponse(res, requestId)
  }
}

/** A call's JSON answer. */
export async function sendJson<T>(t: Transport, call: Call): Promise<T> {
  return (await (await send(t, call)).json()) as T
}
