/**
 * Signing in: the token is kept in sessionStorage (this tab only, gone when it closes; never
 * in a URL or a cookie). A probe tells what the token is: GET /index answers any valid token
 * (401 for a wrong one; 200 without any when the service has no token configured), and
 * GET /agents only the admin's.
 */
import { clientFor, isStatus } from './api.js'

const TOKEN_KEY = 'mnemo.token'

export type Session = { token: string | null; role: 'admin' | 'agent' }

export const storedToken = (): string | null => sessionStorage.getItem(TOKEN_KEY)

export function keepToken(token: string | null): void {
  if (token) sessionStorage.setItem(TOKEN_KEY, token)
  else sessionStorage.removeItem(TOKEN_KEY)
}

/** The session a token opens, or null when the service wants a (different) token. */
export async function probe(token: string | null): Promise<Session | null> {
  const client = clientFor(token, { agent: null, user: null })
  try {
    await client.status()
  } catch (err) {
    if (isStatus(err, 401)) return null
    throw err
  }
  try {
    await client.agents()
    return { token, role: 'admin' }
  } catch (err) {
    if (isStatus(err, 403)) return { token, role: 'agent' }
    throw err
  }
}
