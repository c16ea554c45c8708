/**
 * Who a request is (SPEC §7, §8, §11): with no token configured anyone on the socket is the
 * admin; otherwise a bearer token must match MNEMO_API_TOKEN (the admin, who may act for
 * any agent and any user) or one agent's token (that agent only, and any of its users it
 * names), or a token bound to one user of an agent (`agent/user`: that user only). Tokens are compared through SHA-256
 * digests with timingSafeEqual against every configured token, so neither length nor
 * content nor which token matched leaks through timing.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import { isAgentId, isUserId, MAIN_AGENT, splitSpaceId } from '../shared/agent-id.js'

/** `userId`: the one user a token is bound to (MNEMO_AGENT_TOKENS entry `agent/user:token`). */
export type Principal = { role: 'admin' } | { role: 'agent'; agentId: string; userId?: string }

/** The agent (and user) a request acts for, or why it may not. */
export type Acting =
  | { kind: 'ok'; agent: string; user: string | null }
  | { kind: 'invalid' }
  | { kind: 'forbidden'; agent: string }
  | { kind: 'user-invalid' }
  | { kind: 'user-forbidden' }

const digest = (s: string) => createHash('sha256').update(s).digest()

export function createTokenAuth(opts: { adminToken: string | undefined; agentTokens: ReadonlyMap<string, string> }) {
  const known: { digest: Buffer; principal: Principal }[] = [
    ...(opts.adminToken ? [{ digest: digest(opts.adminToken), principal: { role: 'admin' } as const }] : []),
    ...[...opts.agentTokens].map(([id, token]) => {
      const bound = splitSpaceId(id)
      const principal: Principal = bound
        ? { role: 'agent', agentId: bound.agent, userId: bound.user }
        : { role: 'agent', agentId: id }
      return { digest: digest(token), principal }
    }),
  ]

  return {
    /** Whether requests must carry a token. */
    required: known.length > 0,
    /** The principal of a presented token, or null when it matches none. */
    authenticate(token: string): Principal | null {
      const presented = digest(token)
      let found: Principal | null = null
      for (const k of known) if (timingSafeEqual(presented, k.digest)) found = k.principal
      return found
    },
    /**
     * The agent a request acts for: the X-Mnemo-Agent header, defaulting to the token's own
     * agent (or `main`). An agent token naming another agent is forbidden. The user: the
     * X-Mnemo-User header, defaulting to the token's bound user (or none); a bound token
     * naming another user is forbidden.
     */
    acting(principal: Principal, header: string | undefined, userHeader?: string): Acting {
      const own = principal.role === 'agent' ? principal.agentId : MAIN_AGENT
      let agent = own
      if (header !== undefined) {
        if (!isAgentId(header)) return { kind: 'invalid' }
        if (principal.role === 'agent' && header !== own) return { kind: 'forbidden', agent: header }
        agent = header
      }
      const bound = principal.role === 'agent' ? (principal.userId ?? null) : null
      if (userHeader === undefined) return { kind: 'ok', agent, user: bound }
      if (!isUserId(userHeader)) return { kind: 'user-invalid' }
      if (bound !== null && userHeader !== bound) return { kind: 'user-forbidden' }
      return { kind: 'ok', agent, user: userHeader }
    },
  }
}

export type TokenAuth = ReturnType<typeof createTokenAuth>
