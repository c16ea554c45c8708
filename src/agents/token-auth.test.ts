import { describe, expect, it } from 'vitest'
import { createTokenAuth } from './token-auth.js'

const ADMIN = 'admin-token-0123456789'
const tokens = new Map([
  ['ops', 'ops-token-0123456789abc'],
  ['research', 'research-token-012345678'],
  ['ops/alice', 'ops-alice-token-0123456789'],
])

describe('token auth', () => {
  const auth = createTokenAuth({ adminToken: ADMIN, agentTokens: tokens })

  it('knows the admin and each agent by token, and nobody else', () => {
    expect(auth.required).toBe(true)
    expect(auth.authenticate(ADMIN)).toEqual({ role: 'admin' })
    expect(auth.authenticate('ops-token-0123456789abc')).toEqual({ role: 'agent', agentId: 'ops' })
    expect(auth.authenticate('research-token-012345678')).toEqual({ role: 'agent', agentId: 'research' })
    expect(auth.authenticate('ops-alice-token-0123456789')).toEqual({ role: 'agent', agentId: 'ops', userId: 'alice' })
    for (const wrong of ['', 'ops', `${ADMIN}x`, ADMIN.slice(1), 'ops-token-0123456789ab']) {
      expect(auth.authenticate(wrong)).toBeNull()
    }
  })

  it('needs no token when none is configured', () => {
    expect(createTokenAuth({ adminToken: undefined, agentTokens: new Map() }).required).toBe(false)
    expect(createTokenAuth({ adminToken: undefined, agentTokens: tokens }).required).toBe(true)
  })

  it.each([
    [{ role: 'admin' }, undefined, { kind: 'ok', agent: 'main', user: null }],
    [{ role: 'admin' }, 'ops', { kind: 'ok', agent: 'ops', user: null }],
    [{ role: 'admin' }, '../ops', { kind: 'invalid' }],
    [{ role: 'admin' }, 'OPS', { kind: 'invalid' }],
    [{ role: 'agent', agentId: 'ops' }, undefined, { kind: 'ok', agent: 'ops', user: null }],
    [{ role: 'agent', agentId: 'ops' }, 'ops', { kind: 'ok', agent: 'ops', user: null }],
    [{ role: 'agent', agentId: 'ops' }, 'main', { kind: 'forbidden', agent: 'main' }],
    [{ role: 'agent', agentId: 'ops' }, 'research', { kind: 'forbidden', agent: 'research' }],
    [{ role: 'agent', agentId: 'ops' }, 'ops/../research', { kind: 'invalid' }],
  ] as const)('%j with X-Mnemo-Agent %j acts as %j', (principal, header, expected) => {
    expect(auth.acting(principal, header)).toEqual(expected)
  })

  const alice = { role: 'agent', agentId: 'ops', userId: 'alice' } as const
  it.each([
    [{ role: 'admin' }, undefined, { kind: 'ok', agent: 'ops', user: null }],
    [{ role: 'admin' }, 'bob', { kind: 'ok', agent: 'ops', user: 'bob' }],
    [{ role: 'agent', agentId: 'ops' }, 'bob', { kind: 'ok', agent: 'ops', user: 'bob' }],
    [{ role: 'agent', agentId: 'ops' }, 'Bob', { kind: 'user-invalid' }],
    [{ role: 'agent', agentId: 'ops' }, '../bob', { kind: 'user-invalid' }],
    [{ role: 'agent', agentId: 'ops' }, '', { kind: 'user-invalid' }],
    [alice, undefined, { kind: 'ok', agent: 'ops', user: 'alice' }],
    [alice, 'alice', { kind: 'ok', agent: 'ops', user: 'alice' }],
    [alice, 'bob', { kind: 'user-forbidden' }],
  ] as const)('%j for agent ops with X-Mnemo-User %j acts as %j', (principal, user, expected) => {
    expect(auth.acting(principal, 'ops', user)).toEqual(expected)
  })

  it('keeps a token bound to a user to its own agent', () => {
    expect(auth.acting(alice, 'research', undefined)).toEqual({ kind: 'forbidden', agent: 'research' })
  })
})
