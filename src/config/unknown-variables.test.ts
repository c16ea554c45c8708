import { describe, expect, it } from 'vitest'
import {
  editDistance,
  KNOWN_VARIABLES,
  nearestVariable,
  unknownVariables,
  unknownVariableWarning,
} from './unknown-variables.js'

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['abc', 'abc', 0],
    ['abc', 'ab', 1],
    ['abc', 'abd', 1],
    ['abcd', 'abdc', 1],
    ['kitten', 'sitting', 3],
    ['', 'abc', 3],
  ])('%s → %s: %i', (a, b, expected) => {
    expect(editDistance(a, b)).toBe(expected)
    expect(editDistance(b, a)).toBe(expected)
  })
})

describe('nearestVariable', () => {
  it.each([
    ['MNEMO_API_TOKN', 'MNEMO_API_TOKEN'],
    ['MNEMO_API_TOKENS', 'MNEMO_API_TOKEN'],
    ['MNEMO_EMBED_MODLE', 'MNEMO_EMBED_MODEL'],
    ['MNEMO_EMBEDDING_MODEL', 'MNEMO_EMBED_MODEL'],
    ['MNEMO_AGENT_TOKEN', 'MNEMO_AGENT_TOKENS'],
    ['mnemo_api_token', 'MNEMO_API_TOKEN'],
    ['MNEMO_WORKSPCE', 'MNEMO_WORKSPACE'],
    ['MNEMO_PORTS', 'MNEMO_PORT'],
    ['MNEMO_FOO', undefined],
    ['MNEMO_', undefined],
    ['MNEMO_ENABLE_EVERYTHING', undefined],
  ])('%s → %s', (name, expected) => {
    expect(nearestVariable(name)).toBe(expected)
  })
})

describe('unknownVariables', () => {
  it('lists MNEMO_* names nothing reads, in any case, and nothing else', () => {
    const env = {
      MNEMO_API_TOKN: 'a-secret-value',
      MNEMO_WORKSPACE: '/w',
      MNEMO_URL: 'http://127.0.0.1:8787',
      MNEMO_CI_NODE: '24',
      mnemo_port: '1',
      PATH: '/bin',
      NODE_ENV: 'production',
    }
    expect(unknownVariables(env)).toEqual([
      { name: 'MNEMO_API_TOKN', suggestion: 'MNEMO_API_TOKEN' },
      { name: 'mnemo_port', suggestion: 'MNEMO_PORT' },
    ])
  })

  it('knows the service, client and tooling variables', () => {
    for (const name of ['MNEMO_API_TOKEN_FILE', 'MNEMO_TOKEN', 'MNEMO_AGENT', 'MNEMO_TIMEOUT_MS', 'MNEMO_CI_NODE']) {
      expect(KNOWN_VARIABLES).toContain(name)
    }
  })

  it.each([
    [
      { name: 'MNEMO_API_TOKN', suggestion: 'MNEMO_API_TOKEN' },
      'unknown setting MNEMO_API_TOKN is ignored: did you mean MNEMO_API_TOKEN?',
    ],
    [
      { name: 'MNEMO_FOO', suggestion: undefined },
      'unknown setting MNEMO_FOO is ignored (the settings are listed in .env.example)',
    ],
  ])('warns %j as %s', (v, expected) => {
    expect(unknownVariableWarning(v)).toBe(expected)
  })
})
