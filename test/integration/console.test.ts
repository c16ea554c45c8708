/**
 * The web console's files at /ui (console.routes.ts): served without a token, under a strict
 * Content-Security-Policy, gzipped, revalidated by ETag; off with MNEMO_CONSOLE=false; a
 * missing build says how to make it. What the console does runs in Chromium
 * (test/browser/console.test.ts).
 */
import { gunzipSync } from 'node:zlib'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { ErrorBody } from '../helpers/api-types.js'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'

const TOKEN = 'console-admin-token-0123456789'
/** The budget for the console's script, gzipped. */
const MAX_SCRIPT_GZIP_BYTES = 200 * 1024

let t: TestApp | undefined
afterEach(async () => {
  await t?.close()
  t = undefined
})

describe('GET /ui', () => {
  it('serves the page, script and styles without a token, under a CSP that runs no inline script', async () => {
    t = await buildTestApp({ env: { MNEMO_API_TOKEN: TOKEN } })
    const page = await t.app.inject({ method: 'GET', url: '/ui' })
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(page.body).toContain('<script type="module" src="/ui/app.js"></script>')
    const csp = String(page.headers['content-security-policy'])
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).not.toContain('unsafe-inline')
    expect(page.headers['x-content-type-options']).toBe('nosniff')
    expect(page.body).toContain('<link rel="icon" type="image/svg+xml" href="/ui/favicon.svg" />')
    for (const [url, type] of [
      ['/ui/app.js', 'text/javascript; charset=utf-8'],
      ['/ui/app.css', 'text/css; charset=utf-8'],
    ] as const) {
      const res = await t.app.inject({ method: 'GET', url })
      expect([res.statusCode, res.headers['content-type']]).toEqual([200, type])
      expect(res.body.length).toBeGreaterThan(100)
    }
    const icon = await t.app.inject({ method: 'GET', url: '/ui/favicon.svg' })
    expect([icon.statusCode, icon.headers['content-type']]).toEqual([200, 'image/svg+xml'])
    // The data is not public: the API still wants the token.
    expect((await t.app.inject({ method: 'GET', url: '/index' })).statusCode).toBe(401)
  })

  it('sends the script gzipped to a browser that takes it, within 200 KB, and answers 304 to its ETag', async () => {
    t = await buildTestApp()
    const plain = await t.app.inject({ method: 'GET', url: '/ui/app.js' })
    const zipped = await t.app.inject({ method: 'GET', url: '/ui/app.js', headers: { 'accept-encoding': 'gzip, br' } })
    expect(zipped.headers['content-encoding']).toBe('gzip')
    expect(zipped.headers.vary).toBe('accept-encoding')
    expect(zipped.rawPayload.length).toBeLessThanOrEqual(MAX_SCRIPT_GZIP_BYTES)
    expect(zipped.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2)
    expect(gunzipSync(zipped.rawPayload).equals(plain.rawPayload)).toBe(true)
    const etag = String(plain.headers.etag)
    const again = await t.app.inject({ method: 'GET', url: '/ui/app.js', headers: { 'if-none-match': etag } })
    expect([again.statusCode, again.body]).toEqual([304, ''])
  })

  it('is not there with MNEMO_CONSOLE=false', async () => {
    t = await buildTestApp({ env: { MNEMO_CONSOLE: 'false' } })
    const res = await t.app.inject({ method: 'GET', url: '/ui' })
    expect([res.statusCode, res.json<ErrorBody>().code]).toEqual([404, 'ROUTE_NOT_FOUND'])
  })

  it('says how to build it when the build is missing, and the API still serves', async () => {
    const missing = path.join(os.tmpdir(), `mnemo-no-console-${process.pid}`)
    t = await buildTestApp({ consoleDir: missing })
    const res = await t.app.inject({ method: 'GET', url: '/ui/app.js' })
    expect([res.statusCode, res.json<ErrorBody>().code]).toEqual([404, 'ROUTE_NOT_FOUND'])
    expect(res.json<ErrorBody>().message).toContain('npm run build')
    expect(fs.existsSync(missing)).toBe(false)
    expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200)
  })

  it('keeps a page of another host out when no token is set (DNS rebinding)', async () => {
    t = await buildTestApp()
    const res = await t.app.inject({ method: 'GET', url: '/ui', headers: { host: 'evil.example' } })
    expect([res.statusCode, res.json<ErrorBody>().code]).toEqual([421, 'HOST_NOT_ALLOWED'])
  })
})
