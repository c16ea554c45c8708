import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { configIssues } from '../../test/helpers/config-issues.js'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { MAX_GRANTS_PER_READER } from './agent-grants.js'
import { loadConfig } from './load-config.js'

let base: string
beforeEach(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-grants-'))
  fs.mkdirSync(path.join(base, 'agents', 'coder'), { recursive: true })
})
afterEach(() => fs.rmSync(base, { recursive: true, force: true }))

const TOKEN = 'reviewer-token-0123456789'

/** An environment with an agents folder holding coder's folder, and a token for reviewer. */
const env = (more: Record<string, string>) => ({
  MNEMO_WORKSPACE: 'workspace',
  MNEMO_AGENTS_DIR: 'agents',
  MNEMO_AGENT_TOKENS: `reviewer:${TOKEN}`,
  ...more,
})

const issuesOf = (vars: Record<string, string>): string[] => configIssues(vars, base)

describe('MNEMO_AGENT_GRANTS', () => {
  it('maps each reader to its owners, knowing agents by token, folder or as main', () => {
    const config = loadConfig(env({ MNEMO_AGENT_GRANTS: ' reviewer:coder , reviewer:main,main:reviewer' }), base)
    expect(config.agents.grants).toEqual(
      new Map([
        ['reviewer', ['coder', 'main']],
        ['main', ['reviewer']],
      ]),
    )
    expect(loadConfig(env({}), base).agents.grants).toEqual(new Map())
  })

  it('lists every bad entry by its number and ids', () => {
    const issues = issuesOf(
      env({ MNEMO_AGENT_GRANTS: 'reviewer:codr,reviewer,coder:coder,Reviewer:coder,reviewer:coder,reviewer:coder' }),
    )
    expect(issues).toEqual([
      'MNEMO_AGENT_GRANTS: entry 1 ("reviewer":"codr"): no agent "codr" (not main, no token in MNEMO_AGENT_TOKENS, no folder in MNEMO_AGENTS_DIR)',
      'MNEMO_AGENT_GRANTS: entry 2: is not of the form reader:owner',
      'MNEMO_AGENT_GRANTS: entry 3 ("coder":"coder"): an agent reads its own memory without a grant',
      'MNEMO_AGENT_GRANTS: entry 4: "Reviewer" is not an agent id (a-z 0-9 _ -, up to 63)',
      'MNEMO_AGENT_GRANTS: entry 6 ("reviewer":"coder"): is listed twice',
    ])
  })

  it('does not repeat an id long enough to be a token pasted here by mistake', () => {
    const issues = issuesOf(env({ MNEMO_AGENT_GRANTS: `reviewer:${TOKEN},coder:${TOKEN}:x` }))
    expect(issues.join('\n')).not.toContain(TOKEN)
    expect(issues[0]).toContain('no agent the 25-character id (not shown: it could be a token)')
    expect(issues[1]).toBe('MNEMO_AGENT_GRANTS: entry 2: is not of the form reader:owner')
  })

  it('knows no agent but main without MNEMO_AGENTS_DIR', () => {
    const issues = issuesOf({ MNEMO_WORKSPACE: 'workspace', MNEMO_AGENT_GRANTS: 'main:coder' })
    expect(issues).toEqual([
      'MNEMO_AGENT_GRANTS: entry 1 ("main":"coder"): no agent "coder" (not main, no token in MNEMO_AGENT_TOKENS, no folder in MNEMO_AGENTS_DIR)',
    ])
  })

  it('needs room to hold a reader and its owners open at once, and at most the owners one search covers', () => {
    expect(issuesOf(env({ MNEMO_AGENT_GRANTS: 'reviewer:coder', MNEMO_MAX_OPEN_AGENTS: '1' }))).toEqual([
      'MNEMO_AGENT_GRANTS: a search by "reviewer" holds 2 agents open at once; MNEMO_MAX_OPEN_AGENTS is 1',
    ])
    // Main is always open: it takes no place.
    expect(() => loadConfig(env({ MNEMO_AGENT_GRANTS: 'main:coder', MNEMO_MAX_OPEN_AGENTS: '1' }), base)).not.toThrow()
    const owners = Array.from({ length: MAX_GRANTS_PER_READER + 1 }, (_, i) => `o${i}`)
    for (const o of owners) fs.mkdirSync(path.join(base, 'agents', o))
    const many = issuesOf(env({ MNEMO_AGENT_GRANTS: owners.map((o) => `reviewer:${o}`).join(',') }))
    expect(many).toEqual([`MNEMO_AGENT_GRANTS: "reviewer" reads 15 agents; at most ${MAX_GRANTS_PER_READER}`])
  })

  it('reserves agents/ in main’s extra paths when main reads another agent', () => {
    const vars = env({ MNEMO_EXTRA_PATHS: 'agents/notes', MNEMO_AGENT_GRANTS: 'main:coder' })
    expect(issuesOf(vars)).toEqual([
      'MNEMO_EXTRA_PATHS: agents/ is reserved for granted memories when main reads another agent',
    ])
    expect(() => loadConfig({ ...vars, MNEMO_AGENT_GRANTS: 'reviewer:coder' }, base)).not.toThrow()
  })
})
