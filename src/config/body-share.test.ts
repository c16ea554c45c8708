import { describe, expect, it } from 'vitest'
import { agentBodyShareBytes } from './body-share.js'

describe('agentBodyShareBytes', () => {
  it.each([
    { limit: 64, largest: 8, expected: 32 },
    { limit: 65, largest: 8, expected: 32 },
    { limit: 64, largest: 40, expected: 40 },
  ])('half of $limit, at least $largest → $expected', ({ limit, largest, expected }) => {
    expect(agentBodyShareBytes(limit, largest)).toBe(expected)
  })
})
