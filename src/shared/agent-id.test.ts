import { describe, expect, it } from 'vitest'
import { isAgentId } from './agent-id.js'

describe('agent ids', () => {
  it.each(['main', 'a', '0', 'ops-bot', 'agent_7', 'a'.repeat(63)])('accepts %s', (id) => {
    expect(isAgentId(id)).toBe(true)
  })

  it.each([
    '',
    'Main',
    '-a',
    '_a',
    '../main',
    'a/b',
    'a.b',
    '.',
    '..',
    'a b',
    'a\u0000',
    'ä',
    'a'.repeat(64),
    'main\n',
  ])('refuses %j', (id) => {
    expect(isAgentId(id)).toBe(false)
  })
})
