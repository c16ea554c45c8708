import { describe, expect, it } from 'vitest'
import { browserPolicy, checkBrowserRequest, hostName } from './browser-guard.js'

const policy = browserPolicy({
  listenHost: '127.0.0.1',
  allowedHosts: ['mnemo', 'Memory.Internal'],
  allowedOrigins: ['https://dashboard.example/'],
})

describe('hostName', () => {
  it.each([
    ['localhost:8787', 'localhost'],
    ['LOCALHOST', 'localhost'],
    ['[::1]:8787', '::1'],
    ['[::1]', '::1'],
    ['::1', '::1'],
    ['mnemo:8787', 'mnemo'],
  ])('%s → %s', (host, expected) => expect(hostName(host)).toBe(expected))
})

describe('checkBrowserRequest without a token', () => {
  it.each([
    ['a local client without Origin', { host: 'localhost:8787' }],
    ['127.0.0.1', { host: '127.0.0.1:8787' }],
    ['IPv6 loopback', { host: '[::1]:8787' }],
    ['a name in MNEMO_ALLOWED_HOSTS', { host: 'mnemo:8787' }],
    ['an allowed name in another case', { host: 'memory.internal' }],
    [
      'Swagger UI on the same origin',
      { host: 'localhost:8787', origin: 'http://localhost:8787', secFetchSite: 'same-origin' },
    ],
    ['the user typing the URL', { host: 'localhost:8787', secFetchSite: 'none' }],
    ['an allowed origin', { host: 'localhost:8787', origin: 'https://dashboard.example', secFetchSite: 'cross-site' }],
  ])('lets through %s', (_name, headers) => {
    expect(checkBrowserRequest(headers, policy)).toEqual({ ok: true })
  })

  it.each([
    ['a rebound DNS name', { host: 'attacker.example' }, 'HOST_NOT_ALLOWED'],
    ['a LAN address not configured', { host: '192.168.1.5:8787' }, 'HOST_NOT_ALLOWED'],
    ['no Host at all', {}, 'HOST_NOT_ALLOWED'],
    ['a page of another site', { host: 'localhost:8787', origin: 'https://evil.example' }, 'ORIGIN_FORBIDDEN'],
    [
      'a page on another port of localhost',
      { host: 'localhost:8787', origin: 'http://localhost:3000', secFetchSite: 'same-site' },
      'ORIGIN_FORBIDDEN',
    ],
    ['a sandboxed page', { host: 'localhost:8787', origin: 'null' }, 'ORIGIN_FORBIDDEN'],
    ['a cross-site fetch without Origin', { host: 'localhost:8787', secFetchSite: 'cross-site' }, 'ORIGIN_FORBIDDEN'],
  ])('refuses %s', (_name, headers, code) => {
    expect(checkBrowserRequest(headers, policy)).toMatchObject({ ok: false, code })
  })
})
