/**
 * Who a request is and which agent it acts for (SPEC §7, §8). Without any token, only
 * requests addressed to this machine and not sent by a web page of another origin are
 * served (browser-guard.ts). With a token configured
 * (MNEMO_API_TOKEN, MNEMO_AGENT_TOKENS), every route except /health needs
 * `Authorization: Bearer <token>` (and /docs, /openapi.json too unless
 * MNEMO_DOCS_PUBLIC=true, /metrics unless MNEMO_METRICS_PUBLIC=true; the console's page at
 * /ui needs none, its API calls do); /ready answers
 * without one, but only whether it is ready. The agent comes from the X-Mnemo-Agent header (default: the
 * token's agent, or `main`); an agent token naming another agent is 403 AGENT_FORBIDDEN. The
 * user from X-Mnemo-User (default: the token's bound user, or none); a bound token naming
 * another user is 403 USER_FORBIDDEN, an id that is not one 400 USER_INVALID.
 * Route handlers read the outcome with callerOf(request).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AGENT_HEADER, USER_HEADER } from '../../shared/agent-id.js'
import type { Principal, TokenAuth } from '../../agents/token-auth.js'
import { appError, ERROR_CODES } from '../../shared/errors.js'
import { checkBrowserRequest, type BrowserPolicy } from '../browser-guard.js'
import { CONSOLE_ROUTES } from '../routes/console.routes.js'
import { OAUTH_DISCOVERY_ROUTES } from '../routes/oauth-discovery.routes.js'
import { sendError } from './error-handler.js'

/**
 * Who sent a request, the agent (and user inside it: null for none) it acts for, and the
 * request's id (the search log names searches by it).
 */
export type Caller = { principal: Principal; agent: string; user: string | null; requestId: string }

/**
 * OAuth discovery answers without a token that mnemo has none (oauth-discovery.routes.ts);
 * the console's page and scripts hold no memory (console.routes.ts).
 */
const PUBLIC_ROUTES = new Set<string>(['/health', ...OAUTH_DISCOVERY_ROUTES, ...CONSOLE_ROUTES])
/**
 * Routes that answer without a token too, in less detail (readinessProbes carry no token);
 * handlers tell the two apart with isAuthenticated().
 */
const OPEN_ROUTES = new Set(['/ready'])
/** Probes answer whatever host name the orchestrator uses (they show no memory). */
const PROBE_ROUTES = new Set(['/health', '/ready'])
const DOCS_ROUTES = /^\/(docs(\/.*)?|openapi\.json)$/
const ADMIN: Principal = { role: 'admin' }

/**
 * Why a request has no principal (RFC 6750 §3): no Authorization header at all (the
 * challenge then carries no error), one that is not `Bearer <token>`, or an unknown token.
 */
function rejection(authorization: string | undefined): { challenge: string; message: string } {
  const realm = 'Bearer realm="mnemo"'
  if (authorization === undefined || authorization.trim() === '') {
    return { challenge: realm, message: 'Missing bearer token: send "Authorization: Bearer <token>"' }
  }
  const [error, message] = /^Bearer\s+\S/i.test(authorization)
    ? ['invalid_token', 'Invalid bearer token: it is neither MNEMO_API_TOKEN nor an agent token of MNEMO_AGENT_TOKENS']
    : ['invalid_request', 'The Authorization header is not of the form Bearer <token>']
  return { challenge: `${realm}, error="${error}", error_description="${message}"`, message }
}

const callers = new WeakMap<FastifyRequest, Caller>()

/** The caller of a request that passed the auth hook. */
export function callerOf(request: FastifyRequest): Caller {
  const caller = callers.get(request)
  if (!caller) throw new Error(`no caller for ${request.method} ${request.url}: the route skipped auth`)
  return caller
}

/** Whether the request passed auth (or none is configured), so it may see details. */
export const isAuthenticated = (request: FastifyRequest): boolean => callers.has(request)

/** The agent a request acts for, or undefined before (or without) auth. */
export const agentOf = (request: FastifyRequest): string | undefined => callers.get(request)?.agent

/** Throws AGENT_FORBIDDEN unless the request carries the admin token (or none is configured). */
export function requireAdmin(request: FastifyRequest): void {
  if (callerOf(request).principal.role !== 'admin') {
    throw appError('AGENT_FORBIDDEN', 'This route needs the admin token (MNEMO_API_TOKEN)')
  }
}

export function registerAuth(
  app: FastifyInstance,
  opts: { auth: TokenAuth; docsPublic: boolean; metricsPublic: boolean; browsers: BrowserPolicy },
): void {
  const { auth } = opts
  app.addHook('onRequest', async (request, reply) => {
    const route = request.routeOptions.url
    if (!auth.required && !(route !== undefined && PROBE_ROUTES.has(route))) {
      const header = (name: string) => {
        const v = request.headers[name]
        return Array.isArray(v) ? v.join(',') : v
      }
      const verdict = checkBrowserRequest(
        { host: header('host'), origin: header('origin'), secFetchSite: header('sec-fetch-site') },
        opts.browsers,
      )
      if (!verdict.ok) return sendError(reply, request, { code: verdict.code, message: verdict.message })
    }
    if (route !== undefined && PUBLIC_ROUTES.has(route)) return
    let principal: Principal | null = ADMIN
    if (auth.required) {
      if (opts.docsPublic && DOCS_ROUTES.test(request.url.split('?')[0] ?? '')) return
      if (opts.metricsPublic && route === '/metrics') return
      const match = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')
      principal = match ? auth.authenticate((match[1] as string).trim()) : null
      if (!principal && route !== undefined && OPEN_ROUTES.has(route)) return
      if (!principal) {
        const { challenge, message } = rejection(request.headers.authorization)
        reply.header('www-authenticate', challenge)
        return sendError(reply, request, { code: 'UNAUTHORIZED', message })
      }
    }
    const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(', ') : v)
    const acting = auth.acting(principal, one(request.headers[AGENT_HEADER]), one(request.headers[USER_HEADER]))
    switch (acting.kind) {
      case 'invalid':
        return sendError(reply, request, { code: 'AGENT_INVALID', message: ERROR_CODES.AGENT_INVALID.message })
      case 'forbidden':
        return sendError(reply, request, {
          code: 'AGENT_FORBIDDEN',
          message: `This token acts for its own agent only, not "${acting.agent}"`,
        })
      case 'user-invalid':
        return sendError(reply, request, { code: 'USER_INVALID', message: ERROR_CODES.USER_INVALID.message })
      case 'user-forbidden':
        return sendError(reply, request, {
          code: 'USER_FORBIDDEN',
          message: 'This token is bound to one user: it acts for that user only',
        })
      case 'ok':
        callers.set(request, { principal, agent: acting.agent, user: acting.user, requestId: request.id })
    }
  })
}
