/**
 * Who a request is (SPEC §7, §8): with no token configured anyone on the socket is the
 * admin; otherwise a bearer token must match MNEMO_API_TOKEN (the admin, who may act for
 * any agent) or one agent's token (that agent only). Tokens are compared through SHA-256
 * digests with timingSafeEqual against every configured token, so neither length nor
 * content nor which token matched leaks through timing.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import { isAgentId, MAIN_AGENT } from '../shared/agent-id.js'

export type Principal = { role: 'admin' } | { role: 'agent'; agentId: string }

/** The agent a request acts for, or why it may not. */
export type Acting = { kind: 'ok'; agent: string } | { kind: 'invalid' } | { kind: 'forbidden'; agent: string }

const digest = (s: string) => createHash('sha256').update(s).digest()

export function createTokenAuth(opts: { adminToken: string | undefined; agentTokens: ReadonlyMap<string, string> }) {
  const known: { digest: Buffer; principal: Principal }[] = [
    ...(opts.adminToken ? [{ digest: digest(opts.adminToken), principal: { role: 'admin' } as const }] : []),
    ...[...opts.agentTokens].map(([agentId, token]) => ({
      digest: digest(token),
      principal: { role: 'agent', agentId } as const,
    })),
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
     * agent (or `main`). An agent token naming another agent is forbidden.
     */
    acting(principal: Principal, header: string | undefined): Acting {
      const own = principal.role === 'agent' ? principal.agentId : MAIN_AGENT
      if (header === undefined) return { kind: 'ok', agent: own }
      if (!isAgentId(header)) return { kind: 'invalid' }
      if (principal.role === 'agent' && header !== own) return { kind: 'forbidden', agent: header }
      return { kind: 'ok', agent: header }
    },
  }
}

export type TokenAuth = ReturnType<typeof createTokenAuth>
