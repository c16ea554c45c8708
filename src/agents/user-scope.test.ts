import { describe, expect, it } from 'vitest'
import { isAppError } from '../shared/errors.js'
import { routeUserPath } from './user-scope.js'

const alice = { agent: 'ops', user: 'alice' }
const nobody = { agent: 'ops', user: null }

/** The route, or the code it is refused with. */
function outcome(who: typeof alice | typeof nobody, raw: string, access: 'read' | 'write') {
  try {
    return routeUserPath(who, raw, access)
  } catch (err) {
    return isAppError(err) ? err.code : err
  }
}

describe('which memory a path reaches for a user', () => {
  it.each([
    [alice, 'users/alice/MEMORY.md', 'read', { kind: 'user', user: 'alice', rel: 'MEMORY.md', prefix: 'users/alice/' }],
    [
      alice,
      'users/alice/memory/a.md',
      'write',
      { kind: 'user', user: 'alice', rel: 'memory/a.md', prefix: 'users/alice/' },
    ],
    [alice, 'MEMORY.md', 'read', { kind: 'shared' }],
    [alice, 'team/MEMORY.md', 'read', { kind: 'shared' }],
    [alice, 'MEMORY.md', 'write', 'PATH_READ_ONLY'],
    [alice, 'team/memory/a.md', 'write', 'PATH_READ_ONLY'],
    [alice, 'users/bob/MEMORY.md', 'read', 'USER_FORBIDDEN'],
    [alice, 'users/alicex/MEMORY.md', 'read', 'USER_FORBIDDEN'],
    [alice, 'users/alice', 'read', 'USER_FORBIDDEN'],
    [alice, 'users', 'read', 'USER_FORBIDDEN'],
    [nobody, 'users/alice/MEMORY.md', 'read', 'USER_FORBIDDEN'],
    [nobody, 'users/', 'write', 'USER_FORBIDDEN'],
    [nobody, 'MEMORY.md', 'write', { kind: 'shared' }],
    [nobody, 'usersx/MEMORY.md', 'read', { kind: 'shared' }],
  ] as const)('%j %s (%s) → %j', (who, raw, access, expected) => {
    expect(outcome(who, raw, access)).toEqual(expected)
  })

  it('refuses a user path alike whatever follows, so nothing tells which files exist', () => {
    const messages = ['users/alice/MEMORY.md', 'users/alice/nothing.md', 'users/zed/x'].map((p) => {
      try {
        routeUserPath({ agent: 'ops', user: 'bob' }, p, 'read')
        return null
      } catch (err) {
        return (err as Error).message
      }
    })
    expect(new Set(messages).size).toBe(1)
    expect(messages[0]).not.toMatch(/alice|zed/)
  })
})
