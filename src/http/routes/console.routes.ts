/**
 * The web console (docs/manual.md, "The console"): GET /ui serves its page, /ui/app.js and
 * /ui/app.css its built assets, /ui/favicon.svg its icon (console/, built by `npm run build` into dist/console). They
 * answer without a token: they hold no memory, and every call the page makes carries the
 * token signed in, as any client's would. Memory content is untrusted, so the page runs under
 * a Content-Security-Policy that allows its own script and style only: nothing inline, no
 * other origin, no frames. The three files are read once, at start; a missing build answers
 * 404 ROUTE_NOT_FOUND saying how to build it.
 */
import { createHash } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import fs from 'node:fs'
import path from 'node:path'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { appError } from '../../shared/errors.js'
import { FAVICON_SVG } from '../plugins/swagger-theme.js'

/** The console's routes, served without a token (auth.ts). */
export const CONSOLE_ROUTES = ['/ui', '/ui/', '/ui/app.js', '/ui/app.css', '/ui/favicon.svg'] as const

const ASSETS = [
  { route: '/ui/app.js', file: 'app.js', type: 'text/javascript; charset=utf-8' },
  { route: '/ui/app.css', file: 'app.css', type: 'text/css; charset=utf-8' },
] as const

/**
 * Only the console's own files, and API calls to this origin. `style-src 'self'` still lets
 * the script set element styles through the DOM (the chart's sizes), never from markup.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

/** A file as served: its bytes, gzipped once at start (the script shrinks about 60 %). */
type Asset = { body: Buffer; gzipped: Buffer; type: string; etag: string }

function asset(body: Buffer, type: string): Asset {
  const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`
  return { body, gzipped: gzipSync(body), type, etag }
}

function load(dir: string, file: string, type: string): Asset | null {
  try {
    return asset(fs.readFileSync(path.join(dir, file)), type)
  } catch {
    return null
  }
}

export const consoleRoutes: FastifyPluginAsync<{
  /** The built console: index.html, app.js, app.css (dist/console). */
  dir: string
}> = async (app, opts) => {
  const page = load(opts.dir, 'index.html', 'text/html; charset=utf-8')
  const send = (served: Asset | null) => async (request: FastifyRequest, reply: FastifyReply) => {
    if (!served) {
      throw appError('ROUTE_NOT_FOUND', `The console is not built in ${opts.dir}: run \`npm run build\``)
    }
    void reply
      .header('content-security-policy', CONSOLE_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cross-origin-opener-policy', 'same-origin')
      // Revalidated each time (a 304 costs little), so a new build is never stale.
      .header('cache-control', 'no-cache')
      .header('etag', served.etag)
      .header('vary', 'accept-encoding')
      .type(served.type)
    if (request.headers['if-none-match'] === served.etag) return reply.code(304).send()
    if (!/\bgzip\b/.test(request.headers['accept-encoding'] ?? '')) return reply.send(served.body)
    return reply.header('content-encoding', 'gzip').send(served.gzipped)
  }
  for (const url of ['/ui', '/ui/']) app.get(url, { schema: { hide: true } }, send(page))
  for (const { route, file, type } of ASSETS) {
    app.get(route, { schema: { hide: true } }, send(load(opts.dir, file, type)))
  }
  // The same mark as Swagger UI's tab, so a browser does not ask for /favicon.ico (a 401).
  app.get('/ui/favicon.svg', { schema: { hide: true } }, send(asset(Buffer.from(FAVICON_SVG), 'image/svg+xml')))
}
