import fs from 'node:fs'
import path from 'node:path'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import type { ContainerOverrides } from '../../src/wiring/container.js'
import { sha256 } from '../../src/domain/hashing.js'
import { useAgentsApp, type AgentsApp } from '../helpers/agents-app.js'
import { openSse, type SseClient, type SseEvent } from '../helpers/sse-client.js'
import { waitFor } from '../helpers/wait-for.js'

const clients: SseClient[] = []
afterEach(async () => {
  for (const c of clients.splice(0)) c.close()
})

async function listening(opts: { env?: Record<string, string>; overrides?: ContainerOverrides; start?: boolean } = {}) {
  const t = await useAgentsApp({ team: true, env: { MNEMO_TEAM_WRITABLE: 'true', ...opts.env }, ...opts })
  await t.app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = t.app.server.address() as AddressInfo
  /** An open stream of `agent`, once its `ready` event arrived. */
  const subscribe = async (agent: string, headers: Record<string, string> = {}) => {
    const c = await openSse(port, { 'x-mnemo-agent': agent, ...headers })
    clients.push(c)
    expect(c.status).toBe(200)
    await c.next((e) => e.event === 'ready')
    return c
  }
  return { t, port, subscribe }
}

const put = (t: AgentsApp, agent: string, file: string, content: string) =>
  t.call('PUT', `/files/${file}`, { agent, payload: { content } })

const ofType = (type: string, file?: string) => (e: SseEvent) =>
  e.event === type && (file === undefined || e.data.path === file)

describe('GET /events', () => {
  it('announces a write, its indexing and a delete to the agent, with the content hash', async () => {
    const { t, subscribe } = await listening()
    const c = await subscribe('ada')
    expect(c.headers['content-type']).toBe('text/event-stream; charset=utf-8')
    const content = '# Notes\nThe staging Redis port is 6380.\n'
    expect((await put(t, 'ada', 'memory/redis.md', content)).statusCode).toBe(201)
    const written = await c.next(ofType('file.written', 'memory/redis.md'))
    expect(written.data).toMatchObject({
      type: 'file.written',
      space: 'agent',
      agent: 'ada',
      sha256: sha256(Buffer.from(content)),
      sizeBytes: Buffer.byteLength(content),
    })
    expect(written.id).toBe(written.data.id)
    const indexed = await c.next(ofType('file.indexed', 'memory/redis.md'))
    expect(indexed.data).toMatchObject({ sha256: sha256(Buffer.from(content)), chunks: 1 })
    expect(Number.isNaN(Date.parse(indexed.data.time as string))).toBe(false)

    expect((await t.call('DELETE', '/files/memory/redis.md', { agent: 'ada' })).statusCode).toBe(200)
    await c.next(ofType('file.deleted', 'memory/redis.md'))
    await c.next(ofType('file.unindexed', 'memory/redis.md'))
    // One more than the one before, in ada's own sequence: ready was 0.
    const ids = c.events.filter((e) => e.id !== undefined).map((e) => Number(e.id?.split('-').at(-1)))
    expect(ids).toEqual(ids.map((_, i) => i))
  })

  it('leaves a stream out of the request-duration histogram, however long it lasted', async () => {
    const { t, subscribe } = await listening()
    expect((await t.call('GET', '/health')).statusCode).toBe(200)
    const c = await subscribe('ada')
    // Shutting down ends the stream from the server's side: its response completes.
    await t.app.close()
    await c.ended
    const routes = (await t.container.services.metrics.httpDuration.get()).values.map((v) => v.labels.route)
    expect(routes).toContain('/health')
    expect(routes).not.toContain('/events')
  })

  it('announces a flush as a write of the day file', async () => {
    const { t, subscribe } = await listening()
    const c = await subscribe('ada')
    const res = await t.call('POST', '/flush', { agent: 'ada', payload: { content: 'Decided: ship on Friday.' } })
    expect(res.statusCode).toBe(200)
    const file = res.json<{ path: string }>().path
    await c.next(ofType('file.written', file))
    await c.next(ofType('file.indexed', file))
  })

  it('announces an entry superseded and a session forgotten, with their lines', async () => {
    const { t, subscribe } = await listening()
    const c = await subscribe('ada')
    const flush = (content: string, extra: Record<string, unknown>) =>
      t.call('POST', '/flush', { agent: 'ada', payload: { content, date: '2026-11-01', ...extra } })
    expect((await flush('- the port is 6380', { key: 'port' })).statusCode).toBe(200)
    expect((await flush('- the port is 6390', { key: 'port', sessionId: 's-9' })).statusCode).toBe(200)
    const superseded = await c.next(ofType('entry.superseded', 'memory/2026-11-01.md'))
    expect(superseded.data).toMatchObject({ space: 'agent', agent: 'ada', startLine: 2, endLine: 3 })
    expect((await t.call('POST', '/forget', { agent: 'ada', payload: { sessionId: 's-9' } })).statusCode).toBe(200)
    const forgotten = await c.next(ofType('session.forgotten', 'memory/2026-11-01.md'))
    expect(forgotten.data).toMatchObject({ sessionId: 's-9', startLine: 5, endLine: 8 })
  })

  it("keeps agents apart: an agent never sees another agent's events, both see the team's", async () => {
    const { t, subscribe } = await listening()
    const a = await subscribe('ada')
    const b = await subscribe('bob')
    expect((await put(t, 'bob', 'memory/secret.md', 'bob only\n')).statusCode).toBe(201)
    expect((await put(t, 'ada', 'memory/mine.md', 'ada only\n')).statusCode).toBe(201)
    // A team write needs its agent to exist: ada does now.
    expect((await put(t, 'ada', 'team/memory/shared.md', 'for everyone\n')).statusCode).toBe(201)
    const teamA = await a.next(ofType('file.indexed', 'team/memory/shared.md'))
    const teamB = await b.next(ofType('file.indexed', 'team/memory/shared.md'))
    expect(teamA.data).toMatchObject({ space: 'team' })
    // The same event, with an id in each agent's own sequence.
    expect(teamA.data.time).toBe(teamB.data.time)
    expect(teamA.id).toMatch(/^[0-9a-z]+-ada-\d+$/)
    expect(teamB.id).toMatch(/^[0-9a-z]+-bob-\d+$/)
    await a.next(ofType('file.indexed', 'memory/mine.md'))
    await b.next(ofType('file.indexed', 'memory/secret.md'))
    // Every event each stream got is its own agent's or the team's.
    const foreign = (c: SseClient, other: string) => c.events.filter((e) => e.data.agent === other)
    expect(foreign(a, 'bob')).toEqual([])
    expect(foreign(b, 'ada')).toEqual([])
    expect(a.events.some((e) => e.data.path === 'memory/secret.md')).toBe(false)
    expect(b.events.some((e) => e.data.path === 'memory/mine.md')).toBe(false)
  })

  it('announces an edit on disk once the watcher has indexed it', async () => {
    const { t, subscribe } = await listening({
      env: { MNEMO_WATCH: 'true', MNEMO_SYNC_DEBOUNCE_MS: '50' },
      start: true,
    })
    const c = await subscribe('main')
    fs.writeFileSync(path.join(t.ws.root, 'MEMORY.md'), '# Memory\nThe okapi lives in the north enclosure.\n')
    const indexed = await c.next(ofType('file.indexed', 'MEMORY.md'))
    expect(indexed.data).toMatchObject({ space: 'agent', agent: 'main', chunks: 1 })
    // Written on disk, not through the API: no file.written.
    expect(c.events.some((e) => e.event === 'file.written')).toBe(false)
    fs.rmSync(path.join(t.ws.root, 'MEMORY.md'))
    await c.next(ofType('file.unindexed', 'MEMORY.md'))
  })

  it('announces a finished rebuild, without an event per file it re-read', async () => {
    const { t, subscribe } = await listening()
    await put(t, 'main', 'memory/a.md', 'alpha\n')
    const c = await subscribe('main')
    const res = await t.call('POST', '/index?wait=true', { payload: { full: true } })
    expect(res.statusCode).toBe(200)
    const done = await c.next(ofType('rebuild.finished'))
    expect(done.data).toMatchObject({ type: 'rebuild.finished', ok: true, files: 1, space: 'agent', agent: 'main' })
    expect(c.events.filter((e) => e.event === 'file.indexed')).toEqual([])
  })

  it('resumes after Last-Event-ID with the events missed, and resets when they are gone', async () => {
    const { t, subscribe } = await listening({ overrides: { events: { replay: 6 } } })
    const first = await subscribe('ada')
    await put(t, 'ada', 'memory/one.md', 'one\n')
    const seen = await first.next(ofType('file.indexed', 'memory/one.md'))
    first.close()
    await put(t, 'bob', 'memory/other.md', 'not for ada\n')
    await put(t, 'ada', 'memory/two.md', 'two\n')
    const again = await subscribe('ada', { 'last-event-id': seen.id as string })
    // What ada missed, in order, before ready; nothing of bob's.
    const replayed = again.events.slice(
      0,
      again.events.findIndex((e) => e.event === 'ready'),
    )
    expect(replayed.map((e) => [e.event, e.data.path])).toEqual([
      ['file.written', 'memory/two.md'],
      ['file.indexed', 'memory/two.md'],
    ])
    const ready = again.events.find((e) => e.event === 'ready') as SseEvent
    // ready names the position now: the newest event, ada's.
    expect(ready.id).toBe(replayed.at(-1)?.id)

    // Past the window of 6 events: the id is too old.
    for (const n of [3, 4, 5]) await put(t, 'ada', `memory/f${n}.md`, `${n}\n`)
    const late = await subscribe('ada', { 'last-event-id': seen.id as string })
    expect(late.events[0]).toMatchObject({ event: 'reset', data: { type: 'reset' } })
    expect(late.events[0]?.id).toBeUndefined()
    // An id of another process (before a restart) resets too.
    const stale = await subscribe('ada', { 'last-event-id': 'zzzz-1' })
    expect(stale.events[0]?.event).toBe('reset')
  })

  it("numbers each agent's events in its own sequence: another agent's writes move none of its ids", async () => {
    // Room for bob's five streams, whenever the server notices the closed ones.
    const { t, subscribe } = await listening({ overrides: { events: { perAgent: 8 } } })
    const readyOf = (c: SseClient) => c.events.find((e) => e.event === 'ready')?.id
    const b = await subscribe('bob')
    const boot = (readyOf(b) as string).split('-')[0] as string
    expect(readyOf(b)).toBe(`${boot}-bob-0`)
    for (const n of [1, 2, 3]) await put(t, 'ada', `memory/a${n}.md`, `ada ${n}\n`)
    // ada's six events (written and indexed, three times) are nowhere in bob's numbers.
    expect(readyOf(await subscribe('bob'))).toBe(`${boot}-bob-0`)
    await put(t, 'bob', 'memory/b.md', 'bob\n')
    expect((await b.next(ofType('file.written', 'memory/b.md'))).id).toBe(`${boot}-bob-1`)
    const own = await b.next(ofType('file.indexed', 'memory/b.md'))
    expect({ id: own.id, dataId: own.data.id }).toEqual({ id: `${boot}-bob-2`, dataId: `${boot}-bob-2` })

    // A team event is the next in each agent's sequence.
    const a = await subscribe('ada')
    expect(readyOf(a)).toBe(`${boot}-ada-6`)
    await put(t, 'ada', 'team/memory/shared.md', 'for everyone\n')
    expect((await a.next(ofType('file.indexed', 'team/memory/shared.md'))).id).toBe(`${boot}-ada-8`)
    expect((await b.next(ofType('file.indexed', 'team/memory/shared.md'))).id).toBe(`${boot}-bob-4`)

    // bob away: ada writes her own file and the team's. bob resumes with the team's events only.
    b.close()
    await put(t, 'ada', 'memory/a4.md', 'ada 4\n')
    await put(t, 'ada', 'team/memory/second.md', 'also for everyone\n')
    const again = await subscribe('bob', { 'last-event-id': `${boot}-bob-4` })
    expect(again.events.map((e) => [e.event, e.id, e.data.path])).toEqual([
      ['file.written', `${boot}-bob-5`, 'team/memory/second.md'],
      ['file.indexed', `${boot}-bob-6`, 'team/memory/second.md'],
      ['ready', `${boot}-bob-6`, undefined],
    ])
    // An id in the form before ids were per agent, or of another agent's stream: start over.
    for (const id of [`${boot}-4`, `${boot}-ada-8`]) {
      const reset = await subscribe('bob', { 'last-event-id': id })
      expect(reset.events.map((e) => e.event)).toEqual(['reset', 'ready'])
    }
  })

  it('refuses streams past the per-agent and total caps with 429 EVENT_STREAMS_LIMIT, and frees them on close', async () => {
    const { port, subscribe } = await listening({ overrides: { events: { perAgent: 2, total: 3 } } })
    const a1 = await subscribe('ada')
    await subscribe('ada')
    const refused = await openSse(port, { 'x-mnemo-agent': 'ada' })
    expect(refused.status).toBe(429)
    expect(JSON.parse(await refused.body())).toMatchObject({ code: 'EVENT_STREAMS_LIMIT' })
    await subscribe('bob')
    const full = await openSse(port, { 'x-mnemo-agent': 'cy' })
    expect(full.status).toBe(429)
    expect(JSON.parse(await full.body())).toMatchObject({ code: 'EVENT_STREAMS_LIMIT' })
    a1.close()
    await a1.ended
    // The server notices the client left and gives its place back.
    await expect
      .poll(async () => {
        const c = await openSse(port, { 'x-mnemo-agent': 'ada' })
        clients.push(c)
        return c.status
      })
      .toBe(200)
  })

  it('takes no agent slot: open streams leave requests of the agent served', async () => {
    const { t, subscribe } = await listening({
      env: { MNEMO_AGENT_MAX_CONCURRENT: '1', MNEMO_AGENT_QUEUE_MS: '0' },
      overrides: { events: { perAgent: 3 } },
    })
    for (let i = 0; i < 3; i++) await subscribe('ada')
    expect((await put(t, 'ada', 'memory/x.md', 'x\n')).statusCode).toBe(201)
    expect((await t.call('GET', '/files', { agent: 'ada' })).statusCode).toBe(200)
  })

  it('sends heartbeat comments on an idle stream', async () => {
    const { subscribe } = await listening({ overrides: { events: { heartbeatMs: 20 } } })
    const c = await subscribe('ada')
    await expect.poll(() => c.comments.includes('heartbeat')).toBe(true)
  })

  it('ends open streams when the app closes, without waiting for clients', async () => {
    const { t, subscribe } = await listening()
    const a = await subscribe('ada')
    const b = await subscribe('bob')
    await t.close()
    await Promise.all([a.ended, b.ended])
  })

  it('refuses a Last-Event-ID longer than 200 characters with 400', async () => {
    const { port } = await listening()
    const c = await openSse(port, { 'last-event-id': 'x'.repeat(201) })
    expect(c.status).toBe(400)
    expect(JSON.parse(await c.body())).toMatchObject({ code: 'VALIDATION_FAILED' })
  })

  it('authenticates like every route: an agent token streams its own agent only', async () => {
    const { t, port } = await listening({
      env: { MNEMO_API_TOKEN: 'admin-token-0123456789abcdef', MNEMO_AGENT_TOKENS: 'ada:ada-token-0123456789abcdef' },
    })
    const anonymous = await openSse(port)
    expect(anonymous.status).toBe(401)
    const other = await openSse(port, { authorization: 'Bearer ada-token-0123456789abcdef', 'x-mnemo-agent': 'bob' })
    expect(other.status).toBe(403)
    expect(JSON.parse(await other.body())).toMatchObject({ code: 'AGENT_FORBIDDEN' })
    const own = await openSse(port, { authorization: 'Bearer ada-token-0123456789abcdef' })
    clients.push(own)
    expect(own.status).toBe(200)
    expect((await own.next((e) => e.event === 'ready')).data).toMatchObject({ agent: 'ada' })
    const res = await t.call('PUT', '/files/memory/n.md', {
      token: 'ada-token-0123456789abcdef',
      payload: { content: 'n\n' },
    })
    expect(res.statusCode).toBe(201)
    expect((await own.next(ofType('file.indexed', 'memory/n.md'))).data).toMatchObject({ agent: 'ada' })
  })

  it('refuses a new stream with 503 OVERLOADED while the service sheds load', async () => {
    let overloaded = false
    const { port } = await listening({ overrides: { pressureProbe: () => overloaded } })
    overloaded = true
    const shed = await waitFor(async () => {
      const c = await openSse(port, { 'x-mnemo-agent': 'ada' })
      clients.push(c)
      return c.status === 503 ? c : undefined
    })
    expect(JSON.parse(await shed.body())).toMatchObject({ code: 'OVERLOADED' })
  })
})
