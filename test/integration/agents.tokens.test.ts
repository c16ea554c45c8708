import { describe, expect, it } from 'vitest'
import { useAgentsApp, type AgentsApp } from '../helpers/agents-app.js'
import type { SearchResponse } from '../helpers/api-types.js'

const ADMIN = 'admin-token-0123456789abcdef'
const ALICE = 'alice-token-0123456789abcdef'
const BOB = 'bob-token-0123456789abcdef'

let t: AgentsApp

async function withTokens(logs?: string[]): Promise<AgentsApp> {
  t = await useAgentsApp({
    env: { MNEMO_API_TOKEN: ADMIN, MNEMO_AGENT_TOKENS: `alice:${ALICE},bob:${BOB}` },
    ...(logs && { logs }),
  })
  for (const [token, note] of [
    [ALICE, '- Alice: the deploy key rotates monthly.'],
    [BOB, '- Bob: the deploy window is Friday noon.'],
  ] as const) {
    const res = await t.call('POST', '/files/memory/2026-03-01.md', { token, payload: { content: note } })
    expect(res.statusCode, res.body).toBe(200)
  }
  return t
}

describe('agent tokens', () => {
  it('act as their own agent without a header, and with their own id in it', async () => {
    await withTokens()
    for (const agent of [undefined, 'alice']) {
      const res = await t.call('POST', '/search', {
        token: ALICE,
        payload: { query: 'deploy' },
        ...(agent && { agent }),
      })
      expect(res.json<SearchResponse>().results.map((r) => r.snippet)).toEqual([expect.stringContaining('Alice')])
    }
    const bob = await t.call('GET', '/files/memory/2026-03-01.md', { token: BOB })
    // An agent token's append is an entry of origin agent (issue 31).
    expect(bob.json<{ text: string }>().text).toMatch(
      /^<!-- observed: \d{4}-\d{2}-\d{2} \| status: active \| origin: agent -->\n- Bob: the deploy window is Friday noon\.$/,
    )
  })

  it.each([
    ['POST', '/search', { query: 'deploy' }],
    ['GET', '/files/memory/2026-03-01.md', undefined],
    ['GET', '/files', undefined],
    ['POST', '/files/memory/2026-03-01.md', { content: '- planted by alice' }],
    ['PUT', '/files/MEMORY.md', { content: '- planted by alice' }],
    ['DELETE', '/files/memory/2026-03-01.md', undefined],
    ['POST', '/flush', { content: '- planted by alice' }],
    ['GET', '/index', undefined],
    ['POST', '/index', {}],
  ] as const)('refuse %s %s for another agent (or main) with 403 AGENT_FORBIDDEN', async (method, url, payload) => {
    await withTokens()
    for (const agent of ['bob', 'main', 'carol']) {
      const res = await t.call(method, url, { token: ALICE, agent, payload })
      expect(res.statusCode, `${agent}: ${res.body}`).toBe(403)
      expect(res.json()).toMatchObject({ code: 'AGENT_FORBIDDEN' })
    }
    const bob = await t.call('GET', '/files/memory/2026-03-01.md', { token: BOB })
    expect(bob.json<{ text: string }>().text).not.toContain('planted')
  })

  it('leave the admin token free to act for any agent, and to list them', async () => {
    await withTokens()
    const asBob = await t.call('POST', '/search', { token: ADMIN, agent: 'bob', payload: { query: 'deploy' } })
    expect(asBob.json<SearchResponse>().results.map((r) => r.snippet)).toEqual([expect.stringContaining('Bob')])
    const agents = await t.call('GET', '/agents', { token: ADMIN })
    expect(agents.statusCode).toBe(200)
    expect(agents.json<{ agents: { id: string }[] }>().agents.map((a) => a.id)).toEqual(['alice', 'bob', 'main'])
  })

  it('keep GET /agents for the admin: an agent token gets 403, no token 401', async () => {
    await withTokens()
    expect((await t.call('GET', '/agents', { token: ALICE })).json()).toMatchObject({ code: 'AGENT_FORBIDDEN' })
    expect((await t.call('GET', '/agents')).json()).toMatchObject({ code: 'UNAUTHORIZED' })
    expect((await t.call('POST', '/search', { token: `${ALICE}x`, payload: { query: 'x' } })).statusCode).toBe(401)
  })

  it('never appear in the log or in an answer', async () => {
    const logs: string[] = []
    await withTokens(logs)
    await t.call('POST', '/search', { token: ALICE, agent: 'bob', payload: { query: 'deploy' } })
    await t.call('POST', '/search', { token: `${BOB}-wrong`, payload: { query: 'deploy' } })
    const res = await t.call('GET', '/agents', { token: ADMIN })
    expect(logs.length).toBeGreaterThan(3)
    expect(logs.some((line) => line.includes('"agent":"alice"'))).toBe(true)
    for (const secret of [ADMIN, ALICE, BOB]) {
      expect(logs.join('\n')).not.toContain(secret)
      expect(res.body).not.toContain(secret)
    }
  })
})

describe('the shared embedding cache', () => {
  it('is counted in GET /index for the admin only, so an agent cannot probe what others hold', async () => {
    t = await useAgentsApp({
      env: { MNEMO_API_TOKEN: ADMIN, MNEMO_AGENT_TOKENS: `alice:${ALICE}`, MNEMO_EMBED_PROVIDER: 'hash' },
    })
    await t.call('PUT', '/files/MEMORY.md', { token: ALICE, payload: { content: '- a note' } })
    const asAlice = await t.call('GET', '/index', { token: ALICE })
    expect(asAlice.json()).not.toHaveProperty('embeddingCacheEntries')
    const synced = await t.call('POST', '/index?wait=true', { token: ALICE, payload: {} })
    expect(synced.json()).not.toHaveProperty('embeddingCacheEntries')
    const asAdmin = await t.call('GET', '/index', { token: ADMIN, agent: 'alice' })
    expect(asAdmin.json()).toHaveProperty('embeddingCacheEntries')
  })
})
