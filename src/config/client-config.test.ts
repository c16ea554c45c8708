import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadClientConfig } from './client-config.js'
import { ConfigError } from '../shared/config-error.js'

describe('loadClientConfig (mnemo mcp)', () => {
  it('talks to the local service by default', () => {
    expect(loadClientConfig({})).toEqual({
      url: 'http://127.0.0.1:8787',
      token: undefined,
      agent: undefined,
      timeoutMs: 30_000,
    })
  })

  it('takes the URL (trailing slashes dropped), token and agent', () => {
    const env = { MNEMO_URL: 'https://mnemo.internal:8443/', MNEMO_TOKEN: 'tok-0123456789abcdef', MNEMO_AGENT: 'ops' }
    expect(loadClientConfig(env)).toMatchObject({
      url: 'https://mnemo.internal:8443',
      token: env.MNEMO_TOKEN,
      agent: 'ops',
    })
  })

  it.each([
    [{ MNEMO_URL: 'ftp://host' }, 'MNEMO_URL'],
    [{ MNEMO_URL: 'http://user:s3cret@host' }, 'MNEMO_URL: must not hold credentials'],
    [{ MNEMO_AGENT: '../ops' }, 'MNEMO_AGENT'],
    [{ MNEMO_TIMEOUT_MS: '5' }, 'MNEMO_TIMEOUT_MS'],
  ])('refuses %j, naming the variable and never echoing a secret', (env, expected) => {
    let caught: unknown
    try {
      loadClientConfig(env)
    } catch (err) {
      caught = err
    }
    expect(caught).toBeInstanceOf(ConfigError)
    expect((caught as Error).message).toContain(expected)
    expect((caught as Error).message).not.toContain('s3cret')
  })
})

describe('MNEMO_TOKEN_FILE', () => {
  it('reads the token from a secret file, without its trailing newline', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-client-'))
    try {
      fs.writeFileSync(path.join(dir, 'token'), 'tok-0123456789abcdef\r\n')
      expect(loadClientConfig({ MNEMO_TOKEN_FILE: 'token' }, dir).token).toBe('tok-0123456789abcdef')
      expect(() => loadClientConfig({ MNEMO_TOKEN_FILE: 'token', MNEMO_TOKEN: 'tok-0123456789abcdef' }, dir)).toThrow(
        'MNEMO_TOKEN: set either MNEMO_TOKEN or MNEMO_TOKEN_FILE, not both',
      )
      expect(() => loadClientConfig({ MNEMO_TOKEN_FILE: 'missing' }, dir)).toThrow('MNEMO_TOKEN_FILE: cannot read')
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('MNEMO_API_TOKEN, the service’s own name, beside MNEMO_TOKEN', () => {
  it('reads MNEMO_API_TOKEN or its file, and MNEMO_TOKEN when it is the only one', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-client-'))
    try {
      fs.writeFileSync(path.join(dir, 'token'), 'tok-0123456789abcdef\n')
      expect(loadClientConfig({ MNEMO_API_TOKEN: 'api-0123456789abcdef' }).token).toBe('api-0123456789abcdef')
      expect(loadClientConfig({ MNEMO_API_TOKEN_FILE: 'token' }, dir).token).toBe('tok-0123456789abcdef')
      expect(loadClientConfig({ MNEMO_TOKEN: 'old-0123456789abcdef' }).token).toBe('old-0123456789abcdef')
      // A shell that runs the service and the client: both names, one token.
      const both = { MNEMO_API_TOKEN_FILE: 'token', MNEMO_TOKEN_FILE: 'token' }
      expect(loadClientConfig(both, dir).token).toBe('tok-0123456789abcdef')
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it('refuses two different tokens rather than guessing, without echoing either', () => {
    const env = { MNEMO_API_TOKEN: 'api-0123456789abcdef', MNEMO_TOKEN: 'old-0123456789abcdef' }
    expect(() => loadClientConfig(env)).toThrow('MNEMO_TOKEN: holds another token than MNEMO_API_TOKEN')
    expect(() => loadClientConfig(env)).not.toThrow(/0123456789/)
    expect(() => loadClientConfig({ MNEMO_API_TOKEN: 'a-0123456789abcdef', MNEMO_API_TOKEN_FILE: 'x' })).toThrow(
      'MNEMO_API_TOKEN: set either MNEMO_API_TOKEN or MNEMO_API_TOKEN_FILE, not both',
    )
  })
})
