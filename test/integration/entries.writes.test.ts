/**
 * Writes that keep memory right (issue 31, SPEC §11), through the API on both engines
 * (POSTGRES_API_SUITE): provenance by token, no duplicates, keys that supersede, supersede
 * in place with If-Match, and forgetting a session — with the bad input each refuses.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { useAgentsApp, type AgentsApp } from '../helpers/agents-app.js'
import type { SearchBody } from '../helpers/build-test-app.js'

const ADMIN = 'admin-token-0123456789abcdef'
const ALICE = 'alice-token-0123456789abcdef'
const BOB = 'bob-token-0123456789abcdef'

type Hit = SearchBody['results'][number]
type Location = { path: string; startLine: number; endLine: number }

async function start(): Promise<AgentsApp> {
  return useAgentsApp({
    env: {
      MNEMO_API_TOKEN: ADMIN,
      MNEMO_AGENT_TOKENS: `alice:${ALICE},bob:${BOB}`,
      MNEMO_OWNER_AGENTS: 'bob',
    },
  })
}

const fileOf = (t: AgentsApp, agent: string, rel: string) => path.join(t.agentsDir, agent, ...rel.split('/'))
const readFile = (t: AgentsApp, agent: string, rel: string) => fs.readFileSync(fileOf(t, agent, rel), 'utf8')

async function search(t: AgentsApp, token: string, body: Record<string, unknown>): Promise<Hit[]> {
  const res = await t.call('POST', '/search', { token, payload: { minScore: 0, mode: 'keyword', ...body } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<SearchBody>().results
}

const append = (t: AgentsApp, token: string, rel: string, payload: Record<string, unknown>) =>
  t.call('POST', `/files/${rel}`, { token, payload })

describe('provenance', () => {
  it('records agent for an agent token, what a client claims within its rights, and refuses owner beyond them', async () => {
    const t = await start()
    const mine = await append(t, ALICE, 'MEMORY.md', { content: '- The staging port is 6380.' })
    expect(mine.statusCode, mine.body).toBe(200)
    expect(readFile(t, 'alice', 'MEMORY.md')).toMatch(
      /^<!-- observed: \d{4}-\d{2}-\d{2} \| status: active \| origin: agent -->\n- The staging port is 6380\.\n$/,
    )
    const pasted = await append(t, ALICE, 'MEMORY.md', { content: '- A web page says port 6390.', origin: 'untrusted' })
    expect(pasted.statusCode, pasted.body).toBe(200)
    const hits = await search(t, ALICE, { query: 'port' })
    expect(Object.fromEntries(hits.map((h) => [h.snippet, h.origin]))).toEqual({
      '- The staging port is 6380.': 'agent',
      '- A web page says port 6390.': 'untrusted',
    })
    expect((await search(t, ALICE, { query: 'port', origins: ['agent'] })).map((h) => h.snippet)).toEqual([
      '- The staging port is 6380.',
    ])

    // Owner beyond the token's rights: 403, nothing written, by field or by comment.
    const before = readFile(t, 'alice', 'MEMORY.md')
    const claims = [
      append(t, ALICE, 'MEMORY.md', { content: '- I am the owner.', origin: 'owner' }),
      append(t, ALICE, 'MEMORY.md', { content: '<!-- origin: owner -->\n- I am the owner.' }),
      t.call('PUT', '/files/MEMORY.md', {
        token: ALICE,
        payload: { content: `${before}<!-- origin: owner -->\n- x\n` },
      }),
      t.call('POST', '/flush', { token: ALICE, payload: { content: '- I am the owner.', origin: 'owner' } }),
      t.call('POST', '/files/memory/new.md', { token: ALICE, payload: { content: '- x', origin: 'owner' } }),
    ]
    for (const res of await Promise.all(claims)) {
      expect(res.statusCode, res.body).toBe(403)
      expect(res.json().code).toBe('PROVENANCE_FORBIDDEN')
    }
    expect(readFile(t, 'alice', 'MEMORY.md')).toBe(before)
    expect(fs.existsSync(fileOf(t, 'alice', 'memory/new.md'))).toBe(false)
    expect(fs.existsSync(fileOf(t, 'alice', 'memory'))).toBe(false)

    // The admin, and an agent in MNEMO_OWNER_AGENTS, may.
    const byAdmin = await t.call('POST', '/files/MEMORY.md', {
      token: ADMIN,
      agent: 'alice',
      payload: { content: '- Never deploy on Fridays.', origin: 'owner' },
    })
    expect(byAdmin.statusCode, byAdmin.body).toBe(200)
    const byBob = await append(t, BOB, 'MEMORY.md', { content: '- Bob speaks for his owner.', origin: 'owner' })
    expect(byBob.statusCode, byBob.body).toBe(200)
    expect((await search(t, ALICE, { query: 'deploy Fridays', origins: ['owner'] }))[0]?.origin).toBe('owner')

    // An agent may rewrite its file with the owner's entry kept as it is, not put words under it.
    const kept = readFile(t, 'alice', 'MEMORY.md')
    const put = (content: string) => t.call('PUT', '/files/MEMORY.md', { token: ALICE, payload: { content } })
    for (const forged of [
      `${kept}- and always on Saturdays.\n`,
      kept.replace('Never deploy on Fridays.', 'Always deploy on Fridays.'),
    ]) {
      const res = await put(forged)
      expect(res.statusCode, res.body).toBe(403)
      expect(res.json().code).toBe('PROVENANCE_FORBIDDEN')
    }
    // An agent's comments say whose they are.
    const unnamed = await put(`<!-- status: active | key: mine -->\n- x\n${kept}`)
    expect(unnamed.json().code).toBe('PROVENANCE_FORBIDDEN')
    expect(readFile(t, 'alice', 'MEMORY.md')).toBe(kept)
    const edited = await put(`<!-- origin: agent -->\n- more\n${kept}`)
    expect(edited.statusCode, edited.body).toBe(200)
  })

  it('refuses an unknown origin or a bad key with 400 VALIDATION_FAILED, and writes nothing', async () => {
    const t = await start()
    for (const payload of [
      { content: '- x', origin: 'boss' },
      { content: '- x', key: 'a | b' },
      { content: '- x', key: ' padded' },
    ]) {
      const res = await append(t, ALICE, 'MEMORY.md', payload)
      expect(res.statusCode, res.body).toBe(400)
      expect(res.json().code).toBe('VALIDATION_FAILED')
    }
    const flush = await t.call('POST', '/flush', { token: ALICE, payload: { content: '- x', origin: 'everyone' } })
    expect(flush.json().code).toBe('VALIDATION_FAILED')
    expect(fs.existsSync(path.join(t.agentsDir, 'alice'))).toBe(false)
  })
})

describe('no duplicates', () => {
  it('does not append an entry whose text is an active entry already, and says where it is', async () => {
    const t = await start()
    const first = await append(t, ALICE, 'MEMORY.md', { content: '- The  staging port is 6380.' })
    expect(first.statusCode).toBe(200)
    const before = readFile(t, 'alice', 'MEMORY.md')
    const again = await append(t, ALICE, 'memory/notes.md', { content: '-   The staging port\nis 6380. ' })
    expect(again.statusCode, again.body).toBe(200)
    expect(again.json()).toMatchObject({
      duplicate: true,
      path: 'MEMORY.md',
      startLine: 1,
      endLine: 2,
      skipped: [{ path: 'MEMORY.md', startLine: 1, endLine: 2 }],
    })
    expect(readFile(t, 'alice', 'MEMORY.md')).toBe(before)
    expect(fs.existsSync(fileOf(t, 'alice', 'memory/notes.md'))).toBe(false)
  })

  it('writes nothing for a flush that is all duplicates, skips the duplicate entries of one that is not', async () => {
    const t = await start()
    const flush = (payload: Record<string, unknown>) => t.call('POST', '/flush', { token: ALICE, payload })
    const first = await flush({ entries: ['- alpha', '- beta'], sessionId: 's1', date: '2026-11-01' })
    expect(first.statusCode, first.body).toBe(200)
    const day = readFile(t, 'alice', 'memory/2026-11-01.md')
    expect(day).toContain('origin: agent')

    const same = await flush({ content: '- alpha\n- beta', sessionId: 's2', date: '2026-11-02' })
    expect(same.json()).toMatchObject({ duplicate: true, indexed: true, skipped: [{ path: 'memory/2026-11-01.md' }] })
    expect(fs.existsSync(fileOf(t, 'alice', 'memory/2026-11-02.md'))).toBe(false)

    const single = await flush({ entries: ['- gamma'], date: '2026-11-01' })
    expect(single.statusCode).toBe(200)
    const mixed = await flush({ entries: ['- gamma', '- delta'], date: '2026-11-03' })
    expect(mixed.json()).toMatchObject({
      path: 'memory/2026-11-03.md',
      skipped: [{ path: 'memory/2026-11-01.md', entry: 0 }],
    })
    const written = readFile(t, 'alice', 'memory/2026-11-03.md')
    expect(written).toContain('- delta')
    expect(written).not.toContain('- gamma')

    // A retried flushId stays a replay, not a duplicate.
    const once = await flush({ content: '- epsilon', flushId: 'f-1', date: '2026-11-04' })
    const retry = await flush({ content: '- epsilon', flushId: 'f-1', date: '2026-11-04' })
    expect(retry.json()).toMatchObject({ replayed: true, startLine: once.json().startLine })
  })
})

describe('a day file grown flush by flush', () => {
  it('finds its first, middle and last entries as duplicates, as each flush prepared only what it added', async () => {
    const t = await start()
    const flush = (payload: Record<string, unknown>) => t.call('POST', '/flush', { token: ALICE, payload })
    const at: { startLine: number; endLine: number }[] = []
    for (let i = 0; i < 12; i++) {
      const res = await flush({ entries: [`- fact ${i} about the pipeline`], sessionId: 's1', date: '2026-11-05' })
      expect(res.statusCode, res.body).toBe(200)
      at.push(res.json())
    }
    for (const i of [0, 5, 11]) {
      const again = await flush({ entries: [`- fact  ${i} about\nthe pipeline`], sessionId: 's2', date: '2026-11-06' })
      expect(again.json(), `fact ${i}`).toMatchObject({
        duplicate: true,
        skipped: [{ path: 'memory/2026-11-05.md', endLine: (at[i] as { endLine: number }).endLine }],
      })
    }
    expect(fs.existsSync(fileOf(t, 'alice', 'memory/2026-11-06.md'))).toBe(false)
  })
})

describe('keys', () => {
  it('supersede the active entry with the same key by themselves, across files', async () => {
    const t = await start()
    const old = await t.call('POST', '/flush', {
      token: ALICE,
      payload: { content: '- Replies: detailed explanations.', key: 'reply-style', date: '2026-05-10' },
    })
    expect(old.statusCode, old.body).toBe(200)
    // Searched before anything is superseded: what the index remembers of that is renewed by the write.
    const before = await search(t, ALICE, { query: 'replies' })
    expect(before.map((h) => [h.status, h.snippet.includes('detailed explanations')])).toEqual([['active', true]])
    const now = await append(t, ALICE, 'MEMORY.md', { content: '- Replies: concise summaries.', key: 'reply-style' })
    expect(now.statusCode, now.body).toBe(200)
    expect(now.json<{ superseded: Location[] }>().superseded).toEqual([
      { path: 'memory/2026-05-10.md', startLine: 2, endLine: 3 },
    ])
    expect(readFile(t, 'alice', 'memory/2026-05-10.md')).toContain(
      '<!-- observed: 2026-05-10 | status: superseded | key: reply-style | origin: agent -->',
    )
    expect((await search(t, ALICE, { query: 'replies' })).map((h) => h.snippet)).toEqual([
      '- Replies: concise summaries.',
    ])
    const all = await search(t, ALICE, { query: 'replies', includeSuperseded: true })
    expect(all.map((h) => [h.status, h.key]).sort()).toEqual([
      ['active', 'reply-style'],
      ['superseded', 'reply-style'],
    ])
  })
})

describe("team memory's entries", () => {
  it('are looked up, superseded and named within the team, under team/', async () => {
    const t = await useAgentsApp({
      team: true,
      env: { MNEMO_API_TOKEN: ADMIN, MNEMO_AGENT_TOKENS: `alice:${ALICE}`, MNEMO_TEAM_WRITABLE: 'true' },
    })
    const first = await append(t, ALICE, 'team/MEMORY.md', { content: '- The team standup is at 9.', key: 'standup' })
    expect(first.statusCode, first.body).toBe(200)
    // The agent's own memory is another scope: the same text and key there are its own.
    const own = await append(t, ALICE, 'MEMORY.md', { content: '- The team standup is at 9.', key: 'standup' })
    expect(own.json()).toMatchObject({ path: 'MEMORY.md' })
    expect(own.json().duplicate).toBeUndefined()
    expect(own.json().superseded).toBeUndefined()
    const again = await append(t, ALICE, 'team/memory/notes.md', { content: '- The team  standup is at 9.' })
    expect(again.json()).toMatchObject({
      duplicate: true,
      path: 'team/MEMORY.md',
      skipped: [{ path: 'team/MEMORY.md' }],
    })
    const res = await t.call('POST', '/supersede', {
      token: ALICE,
      payload: { path: 'team/MEMORY.md', startLine: 2, content: '- The team standup is at 10.' },
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toMatchObject({
      path: 'team/MEMORY.md',
      entry: { path: 'team/MEMORY.md' },
      superseded: [{ path: 'team/MEMORY.md', startLine: 1, endLine: 2 }],
    })
    const hits = await search(t, ALICE, { query: 'standup' })
    expect(hits.map((h) => `${h.path} ${h.snippet}`).sort()).toEqual([
      'MEMORY.md - The team standup is at 9.',
      'team/MEMORY.md - The team standup is at 10.',
    ])
  })
})

describe('POST /supersede', () => {
  const PREFS =
    '# Preferences\n\n<!-- observed: 2026-05-10 | status: active | key: db -->\n- The database is db-3.\n\n## Style\nTabs over spaces.\n'

  it('marks the old entry superseded in place and writes the new one after it, under If-Match', async () => {
    const t = await start()
    t.writeAgentFile('alice', 'MEMORY.md', PREFS)
    const read = await t.call('GET', '/files/MEMORY.md', { token: ALICE })
    const sha = read.json<{ sha256: string }>().sha256
    const before = readFile(t, 'alice', 'MEMORY.md')

    const stale = await t.call('POST', '/supersede', {
      token: ALICE,
      headers: { 'if-match': `"${'0'.repeat(64)}"` },
      payload: { path: 'MEMORY.md', startLine: 4, content: '- The database is db-9.' },
    })
    expect(stale.statusCode).toBe(412)
    expect(stale.json().code).toBe('PRECONDITION_FAILED')
    expect(readFile(t, 'alice', 'MEMORY.md')).toBe(before)

    const res = await t.call('POST', '/supersede', {
      token: ALICE,
      headers: { 'if-match': `"${sha}"` },
      payload: { path: 'MEMORY.md', startLine: 4, content: '- The database is db-9.' },
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toMatchObject({
      path: 'MEMORY.md',
      entry: { path: 'MEMORY.md', startLine: 6, endLine: 7 },
      superseded: [{ path: 'MEMORY.md', startLine: 3, endLine: 4 }],
      indexed: true,
    })
    expect(res.headers.etag).toBe(`"${res.json<{ sha256: string }>().sha256}"`)
    const text = readFile(t, 'alice', 'MEMORY.md')
    expect(text.split('\n').slice(2, 10)).toEqual([
      '<!-- observed: 2026-05-10 | status: superseded | key: db -->',
      '- The database is db-3.',
      '',
      expect.stringMatching(/^<!-- observed: \d{4}-\d{2}-\d{2} \| status: active \| key: db \| origin: agent -->$/),
      '- The database is db-9.',
      '',
      '## Style',
      'Tabs over spaces.',
    ])
    expect((await search(t, ALICE, { query: 'database' })).map((h) => h.snippet)).toEqual(['- The database is db-9.'])

    // The same entry again: superseded already, 412, nothing written.
    const twice = await t.call('POST', '/supersede', {
      token: ALICE,
      payload: { path: 'MEMORY.md', startLine: 4, content: '- The database is db-10.' },
    })
    expect(twice.statusCode).toBe(412)
    expect(readFile(t, 'alice', 'MEMORY.md')).toBe(text)

    // By key: the newest active entry with it.
    const byKey = await t.call('POST', '/supersede', {
      token: ALICE,
      payload: { key: 'db', content: '- The database is db-11.' },
    })
    expect(byKey.statusCode, byKey.body).toBe(200)
    expect(byKey.json()).toMatchObject({ superseded: [{ path: 'MEMORY.md', startLine: 6, endLine: 7 }] })
    expect((await search(t, ALICE, { query: 'database' })).map((h) => h.snippet)).toEqual(['- The database is db-11.'])
  })

  it('turns plain lines into a superseded entry, and refuses what is not an entry', async () => {
    const t = await start()
    t.writeAgentFile('alice', 'MEMORY.md', '# Notes\nTabs over spaces.\nUse pnpm.\n')
    await t.call('POST', '/index?wait=true', { token: ALICE, payload: {} })
    const res = await t.call('POST', '/supersede', {
      token: ALICE,
      payload: { path: 'MEMORY.md', startLine: 2, content: 'Spaces over tabs.', origin: 'untrusted' },
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(readFile(t, 'alice', 'MEMORY.md')).toMatch(
      /^# Notes\n<!-- status: superseded -->\nTabs over spaces\.\n\n<!-- observed: [\d-]+ \| status: active \| origin: untrusted -->\nSpaces over tabs\.\n\n<!-- status: active -->\nUse pnpm\.\n$/,
    )
    const hits = await search(t, ALICE, { query: 'tabs spaces pnpm' })
    expect(hits.map((h) => h.snippet).sort()).toEqual(['Spaces over tabs.', 'Use pnpm.'])

    const before = readFile(t, 'alice', 'MEMORY.md')
    const cases: [Record<string, unknown>, number, string][] = [
      [{ path: 'MEMORY.md', startLine: 1, content: '- x' }, 404, 'ENTRY_NOT_FOUND'], // a heading
      [{ path: 'MEMORY.md', startLine: 40, content: '- x' }, 404, 'ENTRY_NOT_FOUND'],
      [{ key: 'nothing-has-it', content: '- x' }, 404, 'ENTRY_NOT_FOUND'],
      [{ path: 'memory/none.md', startLine: 1, content: '- x' }, 404, 'FILE_NOT_FOUND'],
      [{ path: 'MEMORY.md', content: '- x' }, 400, 'VALIDATION_FAILED'],
      [{ startLine: 2, content: '- x' }, 400, 'VALIDATION_FAILED'],
      [{ path: 'MEMORY.md', startLine: 6, content: '- x', origin: 'boss' }, 400, 'VALIDATION_FAILED'],
      [{ path: 'MEMORY.md', startLine: 6, content: '- x', origin: 'owner' }, 403, 'PROVENANCE_FORBIDDEN'],
      [{ path: '../x.md', startLine: 1, content: '- x' }, 400, 'PATH_INVALID'],
    ]
    for (const [payload, status, code] of cases) {
      const refused = await t.call('POST', '/supersede', { token: ALICE, payload })
      expect(refused.statusCode, JSON.stringify(payload)).toBe(status)
      expect(refused.json().code, JSON.stringify(payload)).toBe(code)
    }
    expect(readFile(t, 'alice', 'MEMORY.md')).toBe(before)
  })
})

describe('POST /forget', () => {
  it("removes every flush of a session from the agent's day files, and from every agent's for the admin", async () => {
    const t = await start()
    const flush = (token: string, content: string, sessionId: string, date: string) =>
      t.call('POST', '/flush', { token, payload: { content, sessionId, date, flushId: `${sessionId}.${date}` } })
    for (const [token, content, session, date] of [
      [ALICE, '- alice secret one', 'chat-1', '2026-11-01'],
      [ALICE, '- alice keeps this', 'chat-2', '2026-11-01'],
      [ALICE, '- alice secret two', 'chat-1', '2026-11-02'],
      [BOB, '- bob secret', 'chat-1', '2026-11-01'],
    ] as const) {
      expect((await flush(token, content, session, date)).statusCode).toBe(200)
    }

    const res = await t.call('POST', '/forget', { token: ALICE, payload: { sessionId: 'chat-1' } })
    expect(res.statusCode, res.body).toBe(200)
    const body = res.json<{ removed: (Location & { agent: string })[]; files: number }>()
    expect(body.files).toBe(2)
    expect(body.removed.map((r) => [r.agent, r.path])).toEqual([
      ['alice', 'memory/2026-11-01.md'],
      ['alice', 'memory/2026-11-02.md'],
    ])
    expect(readFile(t, 'alice', 'memory/2026-11-01.md')).not.toContain('secret')
    expect(readFile(t, 'alice', 'memory/2026-11-01.md')).toContain('- alice keeps this')
    expect(await search(t, ALICE, { query: 'secret' })).toEqual([])
    // Bob's memory is not Alice's to forget.
    expect((await search(t, BOB, { query: 'secret' })).length).toBe(1)

    // Every agent: the admin's without X-Mnemo-Agent (unless it says otherwise), nobody else's.
    const notAll = await t.call('POST', '/forget', { token: ALICE, payload: { sessionId: 'chat-1', everyAgent: true } })
    expect(notAll.json().code).toBe('VALIDATION_FAILED')
    const mainOnly = await t.call('POST', '/forget', {
      token: ADMIN,
      payload: { sessionId: 'chat-1', everyAgent: false },
    })
    expect(mainOnly.json()).toMatchObject({ removed: [], files: 0 })
    expect((await search(t, BOB, { query: 'secret' })).length).toBe(1)
    const everyone = await t.call('POST', '/forget', { token: ADMIN, payload: { sessionId: 'chat-1' } })
    expect(everyone.json<{ removed: { agent: string }[] }>().removed.map((r) => r.agent)).toEqual(['bob'])
    expect(await search(t, BOB, { query: 'secret' })).toEqual([])

    // The flush of a forgotten session can be written again (its marker went with it).
    const again = await flush(ALICE, '- alice secret one', 'chat-1', '2026-11-01')
    expect(again.json()).toMatchObject({ replayed: false })

    const bad = await t.call('POST', '/forget', { token: ALICE, payload: { sessionId: '' } })
    expect(bad.json().code).toBe('VALIDATION_FAILED')
  })
})

describe('what a hostile client tried (issue 31 review)', () => {
  const activeWith = (t: AgentsApp, agent: string, rel: string, key: string) =>
    (readFile(t, agent, rel).match(new RegExp(`status: active \\| key: ${key}\\b`, 'g')) ?? []).length

  it('leaves exactly one active entry when writes with one key race', async () => {
    const t = await start()
    const writes = ['A', 'B', 'C', 'D'].map((v) =>
      append(t, ALICE, 'MEMORY.md', { content: `- deploy window ${v}`, key: 'dw' }),
    )
    for (const res of await Promise.all(writes)) expect(res.statusCode, res.body).toBe(200)
    expect(activeWith(t, 'alice', 'MEMORY.md', 'dw')).toBe(1)
    expect(await search(t, ALICE, { query: 'deploy window' })).toHaveLength(1)
    const supersedes = ['v1', 'v2', 'v3'].map((v) =>
      t.call('POST', '/supersede', { token: ALICE, payload: { key: 'dw', content: `- deploy window ${v}` } }),
    )
    for (const res of await Promise.all(supersedes)) expect(res.statusCode, res.body).toBe(200)
    expect(activeWith(t, 'alice', 'MEMORY.md', 'dw')).toBe(1)
  })

  it('refuses keys with control or line-separator characters, in appends and flushes alike', async () => {
    const t = await start()
    for (const key of ['x\u2028y', 'k\u0000', 'a\rb']) {
      const appended = await append(t, ALICE, 'MEMORY.md', { content: '- x', key })
      const flushed = await t.call('POST', '/flush', { token: ALICE, payload: { content: '- x', key } })
      expect([appended.json().code, flushed.json().code]).toEqual(['VALIDATION_FAILED', 'VALIDATION_FAILED'])
    }
    const forget = await t.call('POST', '/forget', { token: ALICE, payload: { sessionId: 'a\nb' } })
    expect(forget.json().code).toBe('VALIDATION_FAILED')
    expect(fs.existsSync(path.join(t.agentsDir, 'alice'))).toBe(false)
  })

  it("forgets a session's lines only, never a later write's", async () => {
    const t = await start()
    const day = 'memory/2026-11-05.md'
    const flushed = await t.call('POST', '/flush', {
      token: ADMIN,
      agent: 'alice',
      payload: { content: '- secret of s1\n## Details\n- secret part two', sessionId: 's1', date: '2026-11-05' },
    })
    expect(flushed.statusCode, flushed.body).toBe(200)
    await t.call('POST', `/files/${day}`, { token: ADMIN, agent: 'alice', payload: { content: 'plain admin note' } })
    // A flush written before sessions had markers: it ends at the first blank line. Written on
    // disk and not synced yet: forget finds it all the same.
    fs.appendFileSync(fileOf(t, 'alice', day), '\n## 10:00:00 · session s1\n- old secret\n\nkept after a blank line\n')
    const other = 'memory/2026-11-04.md'
    fs.writeFileSync(fileOf(t, 'alice', other), '## 09:00:00 · session s1\n- another old secret\n')
    const res = await t.call('POST', '/forget', { token: ALICE, payload: { sessionId: 's1' } })
    expect(res.json<{ removed: unknown[] }>().removed).toHaveLength(3)
    expect(readFile(t, 'alice', day)).toBe('plain admin note\n\nkept after a blank line\n')
    expect(readFile(t, 'alice', other)).toBe('')
    expect(await search(t, ALICE, { query: 'secret' })).toEqual([])
  })

  it('keeps a flushId retry a replay after an entry of that flush was superseded', async () => {
    const t = await start()
    const body = { content: '- alpha', flushId: 'fid-1', date: '2026-11-06' }
    const first = await t.call('POST', '/flush', { token: ALICE, payload: body })
    const superseded = await t.call('POST', '/supersede', {
      token: ALICE,
      payload: {
        path: 'memory/2026-11-06.md',
        startLine: first.json<{ endLine: number }>().endLine,
        content: '- beta',
      },
    })
    expect(superseded.statusCode, superseded.body).toBe(200)
    const retry = await t.call('POST', '/flush', { token: ALICE, payload: body })
    expect(retry.json()).toMatchObject({ replayed: true, startLine: first.json<{ startLine: number }>().startLine })
    expect((await search(t, ALICE, { query: 'alpha beta' })).map((h) => h.snippet)).toEqual(['- beta'])
  })

  it('keeps a flushId retry a replay when what it left out as duplicates is no longer active', async () => {
    const t = await start()
    const dup = await append(t, ALICE, 'MEMORY.md', { content: '- dup-one' })
    expect(dup.statusCode).toBe(200)
    const body = { entries: ['- dup-one', '- fresh-two'], flushId: 'fid-2', date: '2026-11-07' }
    const first = await t.call('POST', '/flush', { token: ALICE, payload: body })
    expect(first.json()).toMatchObject({ skipped: [{ path: 'MEMORY.md', entry: 0 }] })
    await t.call('POST', '/supersede', {
      token: ALICE,
      payload: { path: 'MEMORY.md', startLine: 2, content: '- dup-x' },
    })
    const retry = await t.call('POST', '/flush', { token: ALICE, payload: body })
    expect(retry.statusCode, retry.body).toBe(200)
    expect(retry.json()).toMatchObject({ replayed: true, startLine: first.json<{ startLine: number }>().startLine })
    const other = await t.call('POST', '/flush', { token: ALICE, payload: { ...body, entries: ['- something else'] } })
    expect(other.json().code).toBe('FLUSH_ID_CONFLICT')
  })

  it('writes the same text under another key or a stronger origin, and answers a duplicate as the write would', async () => {
    const t = await start()
    await append(t, ALICE, 'MEMORY.md', { content: '- port 6380', key: 'prod-port' })
    const other = await append(t, ALICE, 'MEMORY.md', { content: '- port 6380', key: 'staging-port' })
    expect(other.json().duplicate).toBeUndefined()
    await append(t, ALICE, 'MEMORY.md', { content: '- The CEO is Dana.', origin: 'untrusted' })
    const confirmed = await t.call('POST', '/files/MEMORY.md', {
      token: ADMIN,
      agent: 'alice',
      payload: { content: '- The CEO is Dana.', origin: 'owner' },
    })
    expect(confirmed.json().duplicate).toBeUndefined()
    expect((await search(t, ALICE, { query: 'CEO Dana', origins: ['owner'] })).length).toBe(1)

    const stale = await t.call('POST', '/files/memory/notes.md', {
      token: ALICE,
      headers: { 'if-match': `"${'0'.repeat(64)}"` },
      payload: { content: '- port 6380', key: 'prod-port' },
    })
    expect(stale.statusCode).toBe(412)
    const readOnly = await t.call('POST', '/files/notes.txt', { token: ALICE, payload: { content: '- port 6380' } })
    expect(readOnly.json().code).toBe('PATH_INVALID')
  })
})
