/**
 * The memory of one agent as a running mnemo serves it over REST (for `mnemo mcp`): each
 * tool call is one request with the bearer token, X-Mnemo-Agent and X-Mnemo-User. Error answers keep
 * the service's code and message; an unreachable service is UNAVAILABLE, naming the URL.
 */
import type { ClientConfig } from '../config/client-config.js'
import type { MemoryBackend } from './memory-backend.js'

/** A failed call: the service's error code (or UNAVAILABLE) and message. */
export class RemoteError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
    this.name = 'RemoteError'
  }
}

/** What fetch is to this module (tests and other runtimes may pass their own). */
export type Fetch = (url: string, init: RequestInit) => Promise<Response>

export function createHttpBackend(config: ClientConfig, fetchImpl: Fetch = fetch): MemoryBackend {
  async function call<T>(method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', ...extra }
    if (config.token) headers.authorization = `Bearer ${config.token}`
    if (config.agent) headers['x-mnemo-agent'] = config.agent
    if (config.user) headers['x-mnemo-user'] = config.user
    if (body !== undefined) headers['content-type'] = 'application/json'
    let res: Response
    try {
      res = await fetchImpl(`${config.url}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(config.timeoutMs),
      })
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err)
      throw new RemoteError('UNAVAILABLE', `mnemo at ${config.url} did not answer: ${why}`)
    }
    const text = await res.text()
    let parsed: unknown
    try {
      parsed = text === '' ? undefined : JSON.parse(text)
    } catch {
      throw new RemoteError('UNAVAILABLE', `mnemo at ${config.url} answered ${res.status} with a body that is not JSON`)
    }
    if (!res.ok) {
      const err = parsed as { code?: unknown; message?: unknown } | undefined
      throw new RemoteError(
        typeof err?.code === 'string' ? err.code : 'UNAVAILABLE',
        typeof err?.message === 'string' ? err.message : `mnemo answered ${res.status}`,
      )
    }
    return parsed as T
  }

  /**
   * A memory path in the URL as one encoded segment (the route decodes it once): with its
   * slashes kept, `..` segments would be resolved by URL parsing before the request is
   * sent, and the service could not say why the path is refused.
   */
  const filePath = (p: string) => `/files/${encodeURIComponent(p)}`

  /** The expected hash as an If-Match header (none: no condition). */
  const ifMatch = (sha256: string | undefined): Record<string, string> =>
    sha256 === undefined ? {} : { 'if-match': `"${sha256}"` }

  return {
    search: (input) => call('POST', '/search', input),
    list: () => call('GET', '/files'),
    get(input) {
      const query = new URLSearchParams()
      if (input.from !== undefined) query.set('from', String(input.from))
      if (input.lines !== undefined) query.set('lines', String(input.lines))
      const qs = query.size > 0 ? `?${query.toString()}` : ''
      return call('GET', `${filePath(input.path)}${qs}`)
    },
    write: ({ path, ...body }) => call('POST', filePath(path), body),
    replace: (input) => call('PUT', filePath(input.path), { content: input.content }, ifMatch(input.sha256)),
    remove: (input) => call('DELETE', filePath(input.path), undefined, ifMatch(input.sha256)),
    flush: (input) => call('POST', '/flush', input),
    supersede: ({ sha256, ...body }) => call('POST', '/supersede', body, ifMatch(sha256)),
    // The acting agent's memory only, as the tool in-process: never every agent's.
    forget: (input) => call('POST', '/forget', { ...input, everyAgent: false }),
    feedback: (input) => call('POST', '/feedback', input),
  }
}
