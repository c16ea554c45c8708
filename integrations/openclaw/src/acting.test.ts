import { describe, expect, it } from 'vitest'
import { actingFor, memoryPath } from './acting.js'
import type { Settings } from './settings.js'

const settings: Settings = { url: 'http://x', token: undefined, agent: undefined, users: 'per-sender', timeoutMs: 5000 }

describe('actingFor', () => {
  it.each([
    [
      { agentId: 'main', senderId: 'alice' },
      { agent: 'main', user: 'alice' },
    ],
    [
      { agentId: 'Support Bot', senderId: '+1 555' },
      { agent: expect.stringMatching(/^support-bot-/), user: expect.stringMatching(/^1-555-/) },
    ],
    [
      { agentId: 'main', senderId: 'alice', senderIsOwner: true },
      { agent: 'main', user: undefined },
    ],
    [{ agentId: 'main' }, { agent: 'main', user: undefined }],
    [{}, { agent: 'main', user: undefined }],
  ])('%j acts as %j', (who, acting) => {
    expect(actingFor(settings, who)).toEqual(acting)
  })

  it('keeps everyone in the shared memory with users: shared, and takes the configured agent', () => {
    expect(actingFor({ ...settings, users: 'shared', agent: 'ops' }, { agentId: 'main', senderId: 'alice' })).toEqual({
      agent: 'ops',
      user: undefined,
    })
  })
})

describe('memoryPath', () => {
  it.each([
    [{ agent: 'main', user: 'alice' }, 'MEMORY.md', 'users/alice/MEMORY.md'],
    [{ agent: 'main', user: 'alice' }, 'users/alice/memory/2026-01-01.md', 'users/alice/memory/2026-01-01.md'],
    [{ agent: 'main', user: 'alice' }, 'users/bob/MEMORY.md', 'users/alice/users/bob/MEMORY.md'],
    [{ agent: 'main', user: undefined }, '/MEMORY.md', 'MEMORY.md'],
  ])('%j: %j → %j', (acting, path, out) => {
    expect(memoryPath(acting, path)).toBe(out)
  })
})
