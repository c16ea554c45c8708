/**
 * POST a JSON body to a provider and parse its JSON answer, with a time limit per attempt
 * and the retry policy of retry-policy.ts. Failures become ProviderErrors that name the
 * provider and the HTTP status, never the request body or the key.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { ProviderError } from './provider-error.js'
import { isRetryableStatus, parseRetryAfter, retryDelayMs } from './retry-policy.js'

export type HttpDeps = {
  fetch: typeof fetch
  /** Waits `ms` unless `signal` aborts first. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>
  random: () => number
  now: () => number
}

export const defaultHttpDeps: HttpDeps = {
  fetch: (...args) => fetch(...args),
  // Rejects with the abort reason, as an aborted fetch does (timers/promises wraps it in an AbortError).
  sleep: (ms, signal) =>
    sleep(ms, undefined, { signal }).catch((err: unknown) => {
      throw signal?.aborted ? signal.reason : err
    }),
  random: Math.random,
  now: Date.now,
}

export type PostJsonOptions = {
  provider: string
  headers: Record<string, string>
  timeoutMs: number
  maxRetries: number
  signal?: AbortSignal | undefined
}

/** Longest piece of an error response body kept in the error message, in characters. */
const ERROR_BODY_CHARS = 200
/** Key-like strings an upstream error may echo back (OpenAI's "Incorrect API key provided: sk-…"). */
const KEY_LIKE = /\b(?:sk|pk|rk|api|key)[-_][\w-]{6,}|\bBearer\s+\S+/gi

/**
 * An upstream error body as kept in error messages and logs: whitespace collapsed, the
 * credential sent with the request and anything key-like replaced, at most 200 characters.
 */
export function errorBodyDetail(text: string, headers: Record<string, string> = {}): string {
  let detail = text.replace(/\s+/g, ' ')
  const sent = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '')?.[1]
  if (sent) detail = detail.split(sent).join('[redacted]')
  return detail.replace(KEY_LIKE, '[redacted]').slice(0, ERROR_BODY_CHARS)
}

type Attempt =
  | { kind: 'ok'; json: unknown }
  | { kind: 'error'; error: ProviderError; retryable: boolean; retryAfterMs: number | null }

async function attemptOnce(url: string, body: unknown, opts: PostJsonOptions, deps: HttpDeps): Promise<Attempt> {
  const fail = (
    kind: 'failed' | 'timeout',
    message: string,
    retryable: boolean,
    extra: { cause?: unknown; status?: number } = {},
  ): Attempt => ({
    kind: 'error',
    error: new ProviderError(kind, opts.provider, message, extra),
    retryable,
    retryAfterMs: null,
  })
  const timeout = AbortSignal.timeout(opts.timeoutMs)
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout
  let res: Response
  let text: string
  try {
    res = await deps.fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...opts.headers },
      body: JSON.stringify(body),
      signal,
    })
    text = await res.text()
  } catch (cause) {
    if (opts.signal?.aborted) return fail('timeout', 'cancelled', false, { cause })
    if (timeout.aborted) return fail('timeout', `no answer within ${opts.timeoutMs} ms`, true, { cause })
    return fail('failed', `request failed: ${(cause as Error).message}`, true, { cause })
  }
  if (!res.ok) {
    const detail = errorBodyDetail(text, opts.headers)
    return {
      ...(fail('failed', `HTTP ${res.status}: ${detail}`, isRetryableStatus(res.status), {
        status: res.status,
      }) as Extract<Attempt, { kind: 'error' }>),
      retryAfterMs: parseRetryAfter(res.headers.get('retry-after'), deps.now()),
    }
  }
  try {
    return { kind: 'ok', json: JSON.parse(text) as unknown }
  } catch (cause) {
    return fail('failed', `malformed JSON in the response (HTTP ${res.status})`, false, { cause })
  }
}

/** The parsed JSON answer; retries per retry-policy.ts; throws ProviderError. */
export async function postJson(url: string, body: unknown, opts: PostJsonOptions, deps: HttpDeps): Promise<unknown> {
  for (let attempt = 0; ; attempt++) {
    const outcome = await attemptOnce(url, body, opts, deps)
    if (outcome.kind === 'ok') return outcome.json
    if (!outcome.retryable || opts.signal?.aborted) throw outcome.error
    const delay = retryDelayMs({
      attempt,
      maxRetries: opts.maxRetries,
      retryAfterMs: outcome.retryAfterMs,
      random: deps.random(),
    })
    if (delay === null) throw outcome.error
    await deps.sleep(delay, opts.signal)
  }
}
