import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { useAgentsApp, type AgentsApp } from '../helpers/agents-app.js'
import { waitFor } from '../helpers/wait-for.js'
import type { SearchResponse } from '../helpers/api-types.js'

let t: AgentsApp

/** Team notes on disk, indexed by the team's start-up sync (seen in GET /agents). */
async function withTeam(env: Record<string, string> = {}): Promise<AgentsApp> {
  t = await useAgentsApp({ team: true, env: { MNEMO_INDEX_ON_START: 'true', ...env } })
  t.writeTeamFile('memory/2026-03-01.md', '# Standup\n- The team moved the release train to Thursdays.\n')
  t.writeTeamFile('MEMORY.md', '# Team\n- On-call rota lives in PagerDuty.\n')
  await t.container.start()
  const team = await waitFor(async () => {
    const agents = await t.call('GET', '/agents')
    return agents.json<{ team: { files: number; lastSync: unknown } }>().team.lastSync ? agents : undefined
  })
  expect(team.json()).toMatchObject({ team: { files: 2, lastSync: { ok: true } } })
  for (const [agent, note] of [
    ['alice', '- Alice moved her 1:1 to Thursdays.'],
    ['bob', '- Bob has no meetings on Thursdays.'],
  ] as const) {
    await t.call('POST', '/files/memory/2026-03-01.md', { agent, payload: { content: note } })
  }
  return t
}

const search = async (agent: string, body: Record<string, unknown>) => {
  const res = await t.call('POST', '/search', { agent, payload: { minScore: 0, ...body } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<SearchResponse>().results
}

describe('team memory', () => {
  it('is searched by every agent beside its own, labelled team and under team/', async () => {
    await withTeam()
    for (const agent of ['alice', 'bob']) {
      const results = await search(agent, { query: 'Thursdays' })
      expect(results.filter((r) => r.space === 'team').map((r) => r.path)).toEqual(['team/memory/2026-03-01.md'])
      expect(results.filter((r) => r.space === 'agent').map((r) => r.path)).toEqual(['memory/2026-03-01.md'])
      const own = results.find((r) => r.space === 'agent')
      expect(own?.snippet).toContain(agent === 'alice' ? 'Alice' : 'Bob')
    }
  })

  it('narrows to one space with spaces, and to team paths with a team/ pathPrefix', async () => {
    await withTeam()
    expect((await search('alice', { query: 'Thursdays', spaces: ['agent'] })).map((r) => r.space)).toEqual(['agent'])
    expect((await search('alice', { query: 'Thursdays', spaces: ['team'] })).map((r) => r.space)).toEqual(['team'])
    const prefixed = await search('alice', { query: 'Thursdays PagerDuty', pathPrefix: 'team/memory/' })
    expect(prefixed.map((r) => r.path)).toEqual(['team/memory/2026-03-01.md'])
    const ownOnly = await search('alice', { query: 'Thursdays PagerDuty', pathPrefix: 'memory/' })
    expect(ownOnly.map((r) => r.path)).toEqual(['memory/2026-03-01.md'])
  })

  it('keeps its MEMORY.md in group-chat searches: only the agent’s own MEMORY.md is private', async () => {
    await withTeam()
    await t.call('PUT', '/files/MEMORY.md', {
      agent: 'alice',
      payload: { content: '- Alice is on-call in PagerDuty.' },
    })
    const shared = await search('alice', { query: 'PagerDuty', scope: 'shared' })
    expect(shared.map((r) => r.path)).toEqual(['team/MEMORY.md'])
    const all = await search('alice', { query: 'PagerDuty' })
    expect(all.map((r) => r.path).sort()).toEqual(['MEMORY.md', 'team/MEMORY.md'])
  })

  it('is readable under team/ and listed after the agent’s own files', async () => {
    await withTeam()
    const read = await t.call('GET', '/files/team/memory/2026-03-01.md?from=2&lines=1', { agent: 'bob' })
    expect(read.json()).toMatchObject({
      path: 'team/memory/2026-03-01.md',
      from: 2,
      text: '- The team moved the release train to Thursdays.',
    })
    const list = await t.call('GET', '/files', { agent: 'bob' })
    expect(list.json<{ files: { path: string; space: string }[] }>().files.map((f) => [f.path, f.space])).toEqual([
      ['memory/2026-03-01.md', 'agent'],
      ['team/MEMORY.md', 'team'],
      ['team/memory/2026-03-01.md', 'team'],
    ])
    const escape = await t.call('GET', '/files/team/..%2F..%2Fagents%2Fbob%2Fmemory%2F2026-03-01.md', {
      agent: 'alice',
    })
    expect(escape.json()).toMatchObject({ code: 'PATH_INVALID' })
  })

  it('is read-only through the API unless MNEMO_TEAM_WRITABLE=true', async () => {
    await withTeam()
    for (const method of ['PUT', 'POST', 'DELETE'] as const) {
      const res = await t.call(method, '/files/team/memory/2026-03-01.md', {
        agent: 'alice',
        ...(method === 'DELETE' ? {} : { payload: { content: '- overwritten' } }),
      })
      expect(res.statusCode, method).toBe(403)
      expect(res.json()).toMatchObject({ code: 'PATH_READ_ONLY' })
    }
    expect(fs.readFileSync(path.join(t.teamDir, 'memory/2026-03-01.md'), 'utf8')).not.toContain('overwritten')
  })

  it('takes writes with MNEMO_TEAM_WRITABLE=true, searchable by the other agents at once', async () => {
    await withTeam({ MNEMO_TEAM_WRITABLE: 'true' })
    const res = await t.call('POST', '/files/team/memory/2026-03-02.md', {
      agent: 'alice',
      payload: { content: '- Decided: Postgres 17 for the billing service.' },
    })
    expect(res.json()).toMatchObject({ path: 'team/memory/2026-03-02.md', startLine: 1, indexed: true })
    expect(fs.readFileSync(path.join(t.teamDir, 'memory/2026-03-02.md'), 'utf8')).toContain('Postgres 17')
    const found = await search('bob', { query: 'Postgres billing' })
    expect(found.map((r) => [r.path, r.space])).toEqual([['team/memory/2026-03-02.md', 'team']])
  })

  it('refuses spaces: ["team"] when there is no team memory', async () => {
    t = await useAgentsApp()
    const res = await t.call('POST', '/search', { payload: { query: 'x', spaces: ['team'] } })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ code: 'VALIDATION_FAILED' })
  })
})
