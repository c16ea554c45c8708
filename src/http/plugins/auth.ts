/**
 * Optional bearer-token auth (SPEC §7): with MNEMO_API_TOKEN set, every route except
 * /health needs `Authorization: Bearer <token>` (and /docs, /openapi.json too unless
 * MNEMO_DOCS_PUBLIC=true). Tokens are compared through SHA-256 digests with
 * timingSafeEqual, so neither length nor content leaks through timing.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { sendError } from './error-handler.js'

const digest = (s: string) => createHash('sha256').update(s).digest()
const PUBLIC_ROUTES = new Set(['/health'])
const DOCS_ROUTES = /^\/(docs(\/.*)?|openapi\.json)$/

export function registerAuth(app: FastifyInstance, opts: { token: string | undefined; docsPublic: boolean }): void {
  const { token } = opts
  if (!token) return
  const expected = digest(token)
  app.addHook('onRequest', async (request, reply) => {
    const route = request.routeOptions.url
    if (route !== undefined && PUBLIC_ROUTES.has(route)) return
    if (opts.docsPublic && DOCS_ROUTES.test(request.url.split('?')[0] ?? '')) return
    const header = request.headers.authorization ?? ''
    const match = /^Bearer\s+(.+)$/i.exec(header)
    if (match && timingSafeEqual(digest((match[1] as string).trim()), expected)) return
    reply.header('www-authenticate', 'Bearer')
    return sendError(reply, request, { code: 'UNAUTHORIZED', message: 'Missing or invalid bearer token' })
  })
}
