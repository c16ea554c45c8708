import { describe, expect, it } from 'vitest'
import { nodeVersionProblem } from './node-version.js'

describe('nodeVersionProblem', () => {
  it.each([
    ['v20.20.2', 'mnemo needs Node.js 22 or newer; this is v20.20.2'],
    ['v18.0.0', 'mnemo needs Node.js 22 or newer; this is v18.0.0'],
    ['21.7.3', 'mnemo needs Node.js 22 or newer; this is v21.7.3'],
    ['v22.0.0', null],
    ['v24.21.0', null],
    ['v100.1.0', null],
    // Something unexpected is let through: the check must never stop a working Node.
    ['nightly', null],
  ])('%s → %s', (version, expected) => {
    expect(nodeVersionProblem(version)).toBe(expected)
  })
})
