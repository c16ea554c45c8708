/**
 * The console's calls to mnemo: openapi-fetch typed by the types generated from the OpenAPI
 * document (src/generated/api-types.ts, as the CLI uses them), with the token signed in and
 * the agent and user the console acts for as headers. An error answer becomes an ApiError
 * with the API's stable code and message, shown to people as it is.
 */
import createClient from 'openapi-fetch'
import type { components, paths } from '../../src/generated/api-types.js'

export type Schemas = components['schemas']
export type Client = ReturnType<typeof createClient<paths>>

/** Whom the console's calls act for: null leaves the header out (the token's own). */
export type Acting = { agent: string | null; user: string | null }

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

/** The headers of a call: the bearer token and whom it acts for. */
export function callHeaders(token: string | null, acting: Acting): Record<string, string> {
  const headers: Record<string, string> = {}
  if (token) headers.authorization = `Bearer ${token}`
  if (acting.agent) headers['x-mnemo-agent'] = acting.agent
  if (acting.user) headers['x-mnemo-user'] = acting.user
  return headers
}

export function clientFor(token: string | null, acting: Acting): Client {
  return createClient<paths>({ baseUrl: location.origin, headers: callHeaders(token, acting) })
}

/** The body of a successful answer, or the answer's error as an ApiError. */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call
  if (response.ok && data !== undefined) return data
  const body = (error ?? {}) as Partial<Schemas['ErrorBody']>
  throw new ApiError(response.status, body.code ?? `HTTP_${response.status}`, body.message ?? response.statusText)
}

/** What to show of any failure: the API's code and message, or the error's own. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) return `${err.code}: ${err.message}`
  return err instanceof Error ? err.message : String(err)
}
