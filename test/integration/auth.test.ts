import fs from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'

const TOKEN = 'test-token-0123456789abcdef'
let t: TestApp
afterEach(() => t.close())

describe('bearer token auth', () => {
  it('lets every route through when MNEMO_API_TOKEN is not set', async () => {
    t = await buildTestApp({ corpus: true })
    for (const url of ['/files', '/index', '/ready', '/openapi.json']) {
      expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(200)
    }
  })

  it.each([
    ['GET', '/files'],
    ['GET', '/files/MEMORY.md'],
    ['GET', '/index'],
    ['POST', '/index'],
    ['POST', '/search'],
    ['GET', '/openapi.json'],
    ['GET', '/docs'],
    ['GET', '/no-such-route'],
  ] as const)('requires the token for %s %s', async (method, url) => {
    t = await buildTestApp({ corpus: true, env: { MNEMO_API_TOKEN: TOKEN } })
    // RFC 6750 §3: the challenge says why, except when no credentials were sent at all.
    for (const [authorization, error] of [
      [undefined, null],
      ['Bearer wrong-token', 'invalid_token'],
      [`Basic ${TOKEN}`, 'invalid_request'],
      [TOKEN, 'invalid_request'],
      ['Bearer ', 'invalid_request'],
      [`Bearer ${TOKEN}x`, 'invalid_token'],
    ] as const) {
      const res = await t.app.inject({
        method,
        url,
        payload: method === 'POST' ? { query: 'x' } : undefined,
        headers: authorization ? { authorization } : {},
      })
      expect(res.statusCode).toBe(401)
      const challenge = String(res.headers['www-authenticate'])
      if (error === null) expect(challenge).toBe('Bearer realm="mnemo"')
      else expect(challenge).toMatch(new RegExp(`^Bearer realm="mnemo", error="${error}", error_description="[^"]+"$`))
      expect(res.json()).toMatchObject({ code: 'UNAUTHORIZED', statusCode: 401 })
      expect(res.body).not.toContain(TOKEN)
    }
  })

  it('accepts the right token and leaves /health open', async () => {
    t = await buildTestApp({ corpus: true, env: { MNEMO_API_TOKEN: TOKEN } })
    const ok = await t.app.inject({
      method: 'POST',
      url: '/search',
      payload: { query: 'redis' },
      headers: { authorization: `Bearer ${TOKEN}` },
    })
    expect(ok.statusCode).toBe(200)
    const lower = await t.app.inject({ method: 'GET', url: '/files', headers: { authorization: `bearer ${TOKEN}` } })
    expect(lower.statusCode).toBe(200)
    expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200)
  })

  it('serves /docs and /openapi.json without the token when MNEMO_DOCS_PUBLIC=true, and nothing else', async () => {
    t = await buildTestApp({ corpus: true, env: { MNEMO_API_TOKEN: TOKEN, MNEMO_DOCS_PUBLIC: 'true' } })
    expect((await t.app.inject({ method: 'GET', url: '/openapi.json' })).statusCode).toBe(200)
    const docs = await t.app.inject({ method: 'GET', url: '/docs/' })
    expect(docs.statusCode).toBe(200)
    expect(docs.headers['content-type']).toContain('text/html')
    expect((await t.app.inject({ method: 'GET', url: '/files' })).statusCode).toBe(401)
    expect((await t.app.inject({ method: 'GET', url: '/docs/../files' })).statusCode).toBe(401)
  })
})

describe('web pages, without a token', () => {
  const evil = { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }

  it('refuse a cross-site write (a form posting text/plain) with 403 ORIGIN_FORBIDDEN, writing nothing', async () => {
    t = await buildTestApp({ corpus: true })
    for (const [url, payload] of [
      ['/files/memory/planted.md', '- planted by a web page'],
      ['/flush', '{"content":"- planted"}'],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url,
        payload,
        headers: { ...evil, 'content-type': 'text/plain' },
      })
      expect(res.statusCode).toBe(403)
      expect(res.json()).toMatchObject({ code: 'ORIGIN_FORBIDDEN' })
    }
    // MCP is a route like the others: a page cannot call memory_write through it either.
    const mcp = await t.app.inject({
      method: 'POST',
      url: '/mcp',
      payload: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'memory_write', arguments: { path: 'memory/planted.md', content: '- planted' } },
      }),
      headers: { ...evil, 'content-type': 'text/plain' },
    })
    expect(mcp.statusCode).toBe(403)
    expect(mcp.json()).toMatchObject({ code: 'ORIGIN_FORBIDDEN' })
    const rebound = await t.app.inject({
      method: 'POST',
      url: '/mcp',
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { host: 'attacker.example', accept: 'application/json, text/event-stream' },
    })
    expect(rebound.json()).toMatchObject({ code: 'HOST_NOT_ALLOWED' })
    expect(t.ws.read('memory/2026-02-16.md')).not.toContain('planted')
    expect(fs.existsSync(t.ws.abs('memory/planted.md'))).toBe(false)
    const read = await t.app.inject({ method: 'GET', url: '/files/MEMORY.md', headers: evil })
    expect(read.json()).toMatchObject({ code: 'ORIGIN_FORBIDDEN' })
  })

  it('answers /ready probes without a token, showing details only with one', async () => {
    t = await buildTestApp({ corpus: true, env: { MNEMO_API_TOKEN: TOKEN } })
    for (const authorization of [undefined, 'Bearer wrong-token']) {
      const probe = await t.app.inject({
        method: 'GET',
        url: '/ready',
        headers: authorization ? { authorization } : {},
      })
      expect(probe.statusCode).toBe(200)
      expect(probe.json()).toEqual({ ready: true })
    }
    const detailed = await t.app.inject({ method: 'GET', url: '/ready', headers: { authorization: `Bearer ${TOKEN}` } })
    expect(detailed.json()).toEqual({
      ready: true,
      checks: {
        index: 'open',
        initialSync: 'done',
        lastSync: 'ok',
        workspace: 'writable',
        embedder: 'none',
        folder: 'held',
        engine: 'sqlite',
        database: 'ok',
      },
    })
  })

  it('refuse requests addressed to another host name (DNS rebinding) with 421, probes excepted', async () => {
    t = await buildTestApp({ corpus: true })
    const res = await t.app.inject({ method: 'GET', url: '/files/MEMORY.md', headers: { host: 'attacker.example' } })
    expect(res.statusCode).toBe(421)
    expect(res.json()).toMatchObject({ code: 'HOST_NOT_ALLOWED' })
    for (const url of ['/health', '/ready']) {
      expect((await t.app.inject({ method: 'GET', url, headers: { host: '10.0.0.7:8787' } })).statusCode).toBe(200)
    }
  })

  it('let through the same origin (Swagger UI), allowed hosts and origins, and any page once a token is set', async () => {
    t = await buildTestApp({
      corpus: true,
      env: { MNEMO_ALLOWED_HOSTS: 'mnemo', MNEMO_ALLOWED_ORIGINS: 'https://dashboard.example' },
    })
    for (const headers of [
      { host: 'localhost:8787', origin: 'http://localhost:8787', 'sec-fetch-site': 'same-origin' },
      { host: 'mnemo:8787' },
      { origin: 'https://dashboard.example', 'sec-fetch-site': 'cross-site' },
    ]) {
      expect((await t.app.inject({ method: 'GET', url: '/files/MEMORY.md', headers })).statusCode).toBe(200)
    }
    await t.close()
    t = await buildTestApp({ corpus: true, env: { MNEMO_API_TOKEN: TOKEN } })
    const withToken = await t.app.inject({
      method: 'GET',
      url: '/files/MEMORY.md',
      headers: { ...evil, host: 'attacker.example', authorization: `Bearer ${TOKEN}` },
    })
    expect(withToken.statusCode).toBe(200)
  })
})
