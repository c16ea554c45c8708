import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { useAgentsApp, type AgentsApp } from '../helpers/agents-app.js'
import { useTestApp } from '../helpers/build-test-app.js'
import type { SearchResponse } from '../helpers/api-types.js'

/** Two agents with a note each, written through the API. */
async function twoAgents(): Promise<AgentsApp> {
  const app = await useAgentsApp()
  for (const [agent, note] of [
    ['alice', '- Alice keeps the staging password in the vault under ZEPHYR-42.'],
    ['bob', '- Bob prefers the quarterly report as a PDF, codename MARLIN.'],
  ] as const) {
    const res = await app.call('POST', '/files/memory/2026-03-01.md', { agent, payload: { content: note } })
    expect(res.statusCode, res.body).toBe(200)
  }
  return app
}

describe('agents are isolated', () => {
  it('keeps each agent to its own notes: search, read, list and the files on disk', async () => {
    const app = await twoAgents()
    const alice = await app.call('POST', '/search', { agent: 'alice', payload: { query: 'ZEPHYR-42 vault' } })
    expect(alice.json<SearchResponse>().results.map((r) => r.path)).toEqual(['memory/2026-03-01.md'])
    expect(alice.json<SearchResponse>().results[0]?.snippet).toContain('ZEPHYR-42')
    expect(
      (
        await app.call('POST', '/search', { agent: 'bob', payload: { query: 'ZEPHYR-42 vault' } })
      ).json<SearchResponse>().results,
    ).toEqual([])
    expect(
      (await app.call('POST', '/search', { payload: { query: 'MARLIN quarterly report' } })).json<SearchResponse>()
        .results,
    ).toEqual([])

    const read = await app.call('GET', '/files/memory/2026-03-01.md', { agent: 'bob' })
    expect(read.json<{ text: string }>().text).toContain('MARLIN')
    expect(read.json<{ text: string }>().text).not.toContain('ZEPHYR')
    expect((await app.call('GET', '/files/memory/2026-03-01.md')).statusCode).toBe(404)

    const list = await app.call('GET', '/files', { agent: 'alice' })
    expect(list.json<{ files: { path: string; space: string }[] }>().files).toEqual([
      expect.objectContaining({ path: 'memory/2026-03-01.md', space: 'agent', chunks: 1 }),
    ])
    expect(fs.readFileSync(path.join(app.agentsDir, 'alice/memory/2026-03-01.md'), 'utf8')).toContain('ZEPHYR')
    expect(fs.readFileSync(path.join(app.agentsDir, 'bob/memory/2026-03-01.md'), 'utf8')).not.toContain('ZEPHYR')
  })

  it.each([
    '../bob',
    'bob/..',
    '..',
    'Bob',
    'alice/../bob',
    'alice%2F..%2Fbob',
    ' bob',
    'bob ',
    '-bob',
    'a'.repeat(64),
    'bob\u00e9',
  ])('refuses the agent header %j with 400 AGENT_INVALID on every route', async (agent) => {
    const app = await twoAgents()
    for (const [method, url, payload] of [
      ['POST', '/search', { query: 'MARLIN' }],
      ['GET', '/files/memory/2026-03-01.md', undefined],
      ['GET', '/files', undefined],
      ['PUT', '/files/memory/x.md', { content: 'x' }],
      ['POST', '/flush', { content: 'x' }],
      ['GET', '/index', undefined],
      ['POST', '/index', {}],
    ] as const) {
      const res = await app.call(method, url, { agent, payload })
      expect(res.statusCode, `${method} ${url}`).toBe(400)
      expect(res.json()).toMatchObject({ code: 'AGENT_INVALID' })
    }
    expect(fs.readdirSync(app.agentsDir).sort()).toEqual(['alice', 'bob'])
  })

  it.each([
    // The URL is normalised before routing: /files/../bob/… is /bob/…, a route that does not exist.
    ['a path leading to the other agent', '../bob/memory/2026-03-01.md', 'ROUTE_NOT_FOUND'],
    ['an encoded path leading to the other agent', '..%2Fbob%2Fmemory%2F2026-03-01.md', 'PATH_INVALID'],
    ['an absolute path into the agents folder', '%2Fagents%2Fbob%2Fmemory%2F2026-03-01.md', 'PATH_INVALID'],
  ])('cannot reach another agent through %s', async (_name, tail, code) => {
    const app = await twoAgents()
    const read = await app.call('GET', `/files/${tail}`, { agent: 'alice' })
    expect(read.json()).toMatchObject({ code })
    expect(read.body).not.toContain('MARLIN')
    const write = await app.call('POST', `/files/${tail}`, { agent: 'alice', payload: { content: 'pwned' } })
    expect(write.json()).toMatchObject({ code })
    expect(fs.readFileSync(path.join(app.agentsDir, 'bob/memory/2026-03-01.md'), 'utf8')).not.toContain('pwned')
  })

  it('cannot reach another agent through pathPrefix', async () => {
    const app = await twoAgents()
    for (const pathPrefix of ['../bob/', '../bob/memory/', '/bob/memory/']) {
      const res = await app.call('POST', '/search', { agent: 'alice', payload: { query: 'MARLIN', pathPrefix } })
      expect(res.statusCode, pathPrefix).toBe(400)
    }
    const bobPrefix = await app.call('POST', '/search', {
      agent: 'alice',
      payload: { query: 'MARLIN quarterly', pathPrefix: 'bob/' },
    })
    expect(bobPrefix.json<SearchResponse>().results).toEqual([])
  })

  it('flushes into the acting agent’s own day file, naming the agent in the heading', async () => {
    const app = await twoAgents()
    const res = await app.call('POST', '/flush', {
      agent: 'bob',
      payload: { entries: ['- Bob switched to the night shift.'], date: '2026-03-02', flushId: 'bob:1' },
    })
    expect(res.json()).toMatchObject({ path: 'memory/2026-03-02.md', startLine: 1, endLine: 3, indexed: true })
    const day = fs.readFileSync(path.join(app.agentsDir, 'bob/memory/2026-03-02.md'), 'utf8')
    expect(day).toMatch(/^## \d\d:\d\d:\d\d · agent bob\n/)
    expect(fs.existsSync(path.join(app.agentsDir, 'alice/memory/2026-03-02.md'))).toBe(false)
    // The same flushId from another agent is that agent's own flush, not a replay of bob's.
    const alice = await app.call('POST', '/flush', {
      agent: 'alice',
      payload: { entries: ['- Alice too.'], date: '2026-03-02', flushId: 'bob:1' },
    })
    expect(alice.json()).toMatchObject({ replayed: false })
  })

  it('answers 404 AGENT_NOT_FOUND for reads of an unknown agent, and creates it on its first write', async () => {
    const app = await twoAgents()
    for (const [method, url, payload] of [
      ['POST', '/search', { query: 'anything' }],
      ['GET', '/files/MEMORY.md', undefined],
      ['GET', '/files', undefined],
      ['GET', '/index', undefined],
      ['POST', '/index', {}],
    ] as const) {
      const res = await app.call(method, url, { agent: 'carol', payload })
      expect(res.statusCode, `${method} ${url}`).toBe(404)
      expect(res.json()).toMatchObject({ code: 'AGENT_NOT_FOUND' })
    }
    // Writes that cannot happen create nothing either.
    for (const [method, url, payload, headers, code] of [
      ['PUT', '/files/notes.txt', { content: 'x' }, {}, 'PATH_INVALID'],
      ['PUT', '/files/sessions/a.jsonl', { content: 'x' }, {}, 'PATH_INVALID'],
      ['PUT', '/files/MEMORY.md', { content: 'x' }, { 'if-match': 'a'.repeat(64) }, 'AGENT_NOT_FOUND'],
      ['DELETE', '/files/MEMORY.md', undefined, {}, 'AGENT_NOT_FOUND'],
      ['POST', '/flush', {}, {}, 'AGENT_NOT_FOUND'],
    ] as const) {
      const res = await app.call(method, url, { agent: 'carol', payload, headers })
      expect(res.json(), `${method} ${url}`).toMatchObject({ code })
    }
    expect(fs.existsSync(path.join(app.agentsDir, 'carol'))).toBe(false)
    const put = await app.call('PUT', '/files/MEMORY.md', {
      agent: 'carol',
      payload: { content: '# Carol\nLikes tea.' },
    })
    expect(put.statusCode).toBe(201)
    expect(fs.readFileSync(path.join(app.agentsDir, 'carol/MEMORY.md'), 'utf8')).toBe('# Carol\nLikes tea.')
    const found = await app.call('POST', '/search', { agent: 'carol', payload: { query: 'tea' } })
    expect(found.json<SearchResponse>().results.map((r) => r.path)).toEqual(['MEMORY.md'])
    expect((await app.call('GET', '/index', { agent: 'carol' })).json()).toMatchObject({ files: 1 })
  })

  it('indexes an agent folder that was filled on disk before its first request', async () => {
    const app = await useAgentsApp({ env: { MNEMO_INDEX_ON_START: 'true' } })
    app.writeAgentFile('dave', 'MEMORY.md', '# Dave\nDave runs the Kafka cluster in eu-west-3.\n')
    const res = await app.call('POST', '/search', { agent: 'dave', payload: { query: 'kafka cluster' } })
    expect(res.json<SearchResponse>().results.map((r) => r.path)).toEqual(['MEMORY.md'])
  })

  it('has only main without MNEMO_AGENTS_DIR: other agents are 404 even for writes', async () => {
    const t = await useTestApp({ corpus: true })
    const main = await t.app.inject({ method: 'GET', url: '/files/MEMORY.md', headers: { 'x-mnemo-agent': 'main' } })
    expect(main.statusCode).toBe(200)
    for (const method of ['GET', 'PUT'] as const) {
      const res = await t.app.inject({
        method,
        url: '/files/MEMORY.md',
        headers: { 'x-mnemo-agent': 'ops' },
        ...(method === 'PUT' ? { payload: { content: 'x' } } : {}),
      })
      expect(res.statusCode).toBe(404)
      expect(res.json()).toMatchObject({
        code: 'AGENT_NOT_FOUND',
        message: expect.stringContaining('MNEMO_AGENTS_DIR'),
      })
    }
  })

  it('refuses an agent folder that is a symlink (it could lead into another agent)', async () => {
    const app = await twoAgents()
    fs.symlinkSync(path.join(app.agentsDir, 'bob'), path.join(app.agentsDir, 'mallory'))
    for (const method of ['GET', 'POST'] as const) {
      const res = await app.call(method, '/files/memory/2026-03-01.md', {
        agent: 'mallory',
        ...(method === 'POST' ? { payload: { content: 'pwned' } } : {}),
      })
      expect(res.statusCode).toBe(404)
      expect(res.json()).toMatchObject({ code: 'AGENT_NOT_FOUND' })
    }
    expect(fs.readFileSync(path.join(app.agentsDir, 'bob/memory/2026-03-01.md'), 'utf8')).not.toContain('pwned')
  })
})
