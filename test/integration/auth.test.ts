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
    ['GET', '/ready'],
    ['GET', '/openapi.json'],
    ['GET', '/docs'],
    ['GET', '/no-such-route'],
  ] as const)('requires the token for %s %s', async (method, url) => {
    t = await buildTestApp({ corpus: true, env: { MNEMO_API_TOKEN: TOKEN } })
    for (const authorization of [
      undefined,
      'Bearer wrong-token',
      `Basic ${TOKEN}`,
      TOKEN,
      'Bearer ',
      `Bearer ${TOKEN}x`,
    ]) {
      const res = await t.app.inject({
        method,
        url,
        payload: method === 'POST' ? { query: 'x' } : undefined,
        headers: authorization ? { authorization } : {},
      })
      expect(res.statusCode).toBe(401)
      expect(res.headers['www-authenticate']).toBe('Bearer')
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
