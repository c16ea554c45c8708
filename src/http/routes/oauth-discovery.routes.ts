/**
 * mnemo has no OAuth: clients send a static bearer token (MNEMO_API_TOKEN or an agent token
 * of MNEMO_AGENT_TOKENS). An MCP client given an OAuth provider answers a 401 by looking for
 * OAuth metadata (RFC 9728 protected-resource, RFC 8414 authorization-server, OpenID
 * discovery), then registering a client at /register. These routes answer each of those
 * without a token, at once, with 404 ROUTE_NOT_FOUND saying how to authenticate instead; the
 * /register answer also carries `error_description`, the field OAuth clients report, so the
 * client's error names the reason rather than ending in an interactive login.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'

const WELL_KNOWN = ['oauth-protected-resource', 'oauth-authorization-server', 'openid-configuration']

/** The discovery routes (auth.ts serves them without a token). */
export const OAUTH_DISCOVERY_ROUTES: ReadonlySet<string> = new Set([
  ...WELL_KNOWN.flatMap((name) => [`/.well-known/${name}`, `/.well-known/${name}/*`]),
  '/register',
])

const NO_OAUTH_MESSAGE =
  'mnemo does not use OAuth: send its static bearer token as "Authorization: Bearer <token>" ' +
  '(MNEMO_API_TOKEN, or an agent token of MNEMO_AGENT_TOKENS); see docs/agents.md'

async function noOAuth(request: FastifyRequest, reply: FastifyReply) {
  return reply.code(404).send({
    statusCode: 404,
    code: 'ROUTE_NOT_FOUND',
    error: 'Not Found',
    message: NO_OAUTH_MESSAGE,
    requestId: String(request.id),
    error_description: NO_OAUTH_MESSAGE,
  })
}

export const oauthDiscoveryRoutes: FastifyPluginAsync = async (app) => {
  for (const url of OAUTH_DISCOVERY_ROUTES) {
    const method = url === '/register' ? 'POST' : 'GET'
    app.route({ method, url, schema: { hide: true }, handler: noOAuth })
  }
}
