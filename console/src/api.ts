/**
 * The console's calls to mnemo go through @mnemo/client (src/client), typed by the OpenAPI
 * document, with the token signed in and the agent and user the console acts for. A failure
 * is a MnemoError with the API's stable code and message, shown to people as it is.
 */
import { Mnemo, MnemoError } from '../../src/client/index.js'
import type { components } from '../../src/generated/api-types.js'

export type Schemas = components['schemas']

/** Whom the console's calls act for: null leaves the header out (the token's own). */
export type Acting = { agent: string | null; user: string | null }

export function clientFor(token: string | null, acting: Acting): Mnemo {
  return new Mnemo({
    baseUrl: location.origin,
    ...(token && { token }),
    ...(acting.agent && { agent: acting.agent }),
    ...(acting.user && { user: acting.user }),
    // A person is waiting: one retry, then say what went wrong.
    retries: 1,
  })
}

/** Whether a failure is the API's answer with this status. */
export const isStatus = (err: unknown, status: number): boolean => err instanceof MnemoError && err.status === status

/** Whether a failure is the API's answer with this code. */
export const isCode = (err: unknown, code: string): boolean => err instanceof MnemoError && err.code === code

/** What to show of any failure: the API's code and message, or the error's own. */
export function describeError(err: unknown): string {
  if (err instanceof MnemoError) return `${err.code}: ${err.message}`
  return err instanceof Error ? err.message : String(err)
}
