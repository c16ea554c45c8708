import { describe, expect, it } from 'vitest'
import { isAppError } from '../shared/errors.js'
import { ADMIN_WRITER, checkOwnerClaims, resolveOrigin, type Writer } from './provenance.js'

const AGENT: Writer = { origin: 'agent', mayClaimOwner: false }
const OWNER_AGENT: Writer = { origin: 'agent', mayClaimOwner: true }

const OWNED = '<!-- observed: 2026-01-01 | origin: owner -->\n- Never deploy on Fridays.\n'
const MINE = '<!-- origin: agent -->\n- The port is 6380.\n'

/** The error code a check throws, or null when it passes. */
function codeOf(fn: () => void): string | null {
  try {
    fn()
    return null
  } catch (err) {
    if (isAppError(err)) return err.code
    throw err
  }
}

describe('checkOwnerClaims', () => {
  it.each([
    // [what, writer, the text written, what the file held (null: an append), the code]
    ['the admin adds an owner entry', ADMIN_WRITER, OWNED, null, null],
    ['an agent adds one', AGENT, OWNED, null, 'PROVENANCE_FORBIDDEN'],
    ['an agent in MNEMO_OWNER_AGENTS adds one', OWNER_AGENT, OWNED, null, null],
    ['an agent keeps its owner’s entry', AGENT, `${MINE}${OWNED}`, `${OWNED}${MINE}`, null],
    ['an agent drops it', AGENT, MINE, `${OWNED}${MINE}`, null],
    ['an agent doubles it', AGENT, `${OWNED}${OWNED}`, OWNED, 'PROVENANCE_FORBIDDEN'],
    ['an agent changes its words', AGENT, OWNED.replace('Never', 'Always'), OWNED, 'PROVENANCE_FORBIDDEN'],
    ['an agent adds a line under it', AGENT, `${OWNED}- and Mondays.\n`, OWNED, 'PROVENANCE_FORBIDDEN'],
    ['an agent refolds its whitespace', AGENT, OWNED.replace('Never deploy', 'Never  deploy'), OWNED, null],
    ['an agent writes a comment naming no origin', AGENT, '<!-- key: k -->\n- x\n', null, 'PROVENANCE_FORBIDDEN'],
    ['an agent keeps such a comment the file had', AGENT, '<!-- key: k -->\n- y\n', '<!-- key: k -->\n- x\n', null],
    ['an agent names untrusted', AGENT, '<!-- origin: untrusted -->\n- x\n', null, null],
    ['an owner comment inside a code fence is text', AGENT, '```\n<!-- origin: owner -->\n```\n', null, null],
  ] as const)('%s', (_what, writer, next, current, code) => {
    expect(codeOf(() => checkOwnerClaims(writer, next, current))).toBe(code)
  })
})

describe('resolveOrigin', () => {
  it('records what is claimed within the rights, else the writer’s default', () => {
    expect(resolveOrigin(AGENT, undefined)).toBe('agent')
    expect(resolveOrigin(AGENT, 'untrusted')).toBe('untrusted')
    expect(resolveOrigin(ADMIN_WRITER, undefined)).toBeNull()
    expect(resolveOrigin(OWNER_AGENT, 'owner')).toBe('owner')
    expect(codeOf(() => resolveOrigin(AGENT, 'owner'))).toBe('PROVENANCE_FORBIDDEN')
  })
})
