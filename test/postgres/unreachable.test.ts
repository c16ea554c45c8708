import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'
import { waitFor } from '../helpers/wait-for.js'
import { databaseUrl, dropSchema, freshSchema } from './pg-engine.js'

/** A TCP proxy to the test database that can cut every connection and refuse new ones. */
async function startProxy(target: URL) {
  let down = false
  const sockets = new Set<net.Socket>()
  const server = net.createServer((client) => {
    if (down) return void client.destroy()
    const upstream = net.connect(Number(target.port), target.hostname)
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on('close', () => sockets.delete(s))
      s.on('error', () => undefined)
    }
    client.pipe(upstream).pipe(client)
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = new URL(target)
  url.port = String((server.address() as net.AddressInfo).port)
  return {
    url: url.toString(),
    cut(): void {
      down = true
      for (const s of sockets) s.destroy()
    },
    restore(): void {
      down = false
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const WAIT_MS = 1500

/** An app whose database connections all go through a proxy that can cut them. */
async function appBehindProxy(env: Record<string, string> = {}) {
  const proxy = await startProxy(new URL(databaseUrl()))
  cleanups.push(proxy.close)
  const schema = freshSchema()
  cleanups.push(() => dropSchema(schema))
  const t: TestApp = await buildTestApp({
    corpus: true,
    env: {
      MNEMO_DATABASE_URL: proxy.url,
      MNEMO_DATABASE_SCHEMA: schema,
      MNEMO_DATABASE_POOL: '1',
      // Requests wait this long for the database (5 s by default), then answer 503.
      MNEMO_DATABASE_WAIT_MS: String(WAIT_MS),
      ...env,
    },
  })
  cleanups.push(() => t.app.close())
  return { proxy, t, schema }
}

const flush = (t: TestApp, flushId: string, note: string) =>
  t.app.inject({ method: 'POST', url: '/flush', payload: { entries: [note], date: '2026-11-28', flushId } })

const whenReady = (t: TestApp) =>
  waitFor(async () => ((await t.app.inject({ method: 'GET', url: '/ready' })).statusCode === 200 ? true : undefined))

describe('PostgreSQL out of reach', () => {
  it('answers 503 INDEX_UNAVAILABLE and /ready 503 while down, refuses writes whole, and recovers without a restart', async () => {
    const { proxy, t } = await appBehindProxy()
    expect((await t.search({ query: 'redis cache' })).body.results.length).toBeGreaterThan(0)

    proxy.cut()
    const down = await t.search({ query: 'redis cache' })
    expect(down.statusCode).toBe(503)
    expect(down.body.code).toBe('INDEX_UNAVAILABLE')
    const ready = await t.app.inject({ method: 'GET', url: '/ready' })
    expect(ready.statusCode).toBe(503)
    expect(ready.json()).toMatchObject({ ready: false, checks: { engine: 'postgres', database: 'unreachable' } })
    // A write takes the file's lock across replicas in the database: without it the write is
    // refused whole (the client retries), never half done or done unlocked.
    const put = () =>
      t.app.inject({
        method: 'PUT',
        url: '/files/memory/outage.md',
        payload: '# Outage\nkafka brokers moved to rack seven',
        headers: { 'content-type': 'text/markdown' },
      })
    const refused = await put()
    expect(refused.statusCode).toBe(503)
    expect(refused.json()).toMatchObject({ code: 'INDEX_UNAVAILABLE' })
    expect(fs.existsSync(path.join(t.ws.root, 'memory', 'outage.md'))).toBe(false)

    proxy.restore()
    await waitFor(async () =>
      (await t.app.inject({ method: 'GET', url: '/ready' })).statusCode === 200 ? true : undefined,
    )
    const written = await put()
    expect(written.statusCode).toBe(201)
    expect(written.json()).toMatchObject({ indexed: true })
    const found = await t.search({ query: 'kafka brokers rack' })
    expect(found.statusCode).toBe(200)
    expect(found.body.results.map((r) => r.path)).toContain('memory/outage.md')
  })

  it('rides out an outage shorter than the wait: requests made meanwhile answer once it is back', async () => {
    const { proxy, t } = await appBehindProxy()
    proxy.cut()
    const search = t.search({ query: 'redis cache' })
    const flushed = flush(t, 'short-1', '- the ferry leaves at noon')
    await new Promise((resolve) => setTimeout(resolve, WAIT_MS / 3))
    proxy.restore()
    const found = await search
    expect(found.statusCode).toBe(200)
    expect(found.body.results.length).toBeGreaterThan(0)
    const written = await flushed
    expect(written.statusCode).toBe(200)
    expect(written.json()).toMatchObject({ indexed: true, replayed: false })
  })

  it('takes flushes again after one was refused for want of the database', async () => {
    const { proxy, t } = await appBehindProxy()
    proxy.cut()
    const refused = await flush(t, 'outage-1', '- written after the outage')
    expect(refused.statusCode).toBe(503)
    expect(refused.json()).toMatchObject({ code: 'INDEX_UNAVAILABLE' })
    const day = path.join(t.ws.root, 'memory', '2026-11-28.md')
    expect(fs.existsSync(day)).toBe(false)
    proxy.restore()
    await whenReady(t)
    // Before the fix the refused batch stayed queued for the day file, and every later flush
    // joined it and waited for ever.
    const retried = await flush(t, 'outage-1', '- written after the outage')
    expect(retried.statusCode).toBe(200)
    expect(retried.json()).toMatchObject({ replayed: false, indexed: true })
    expect(fs.readFileSync(day, 'utf8').split('- written after the outage').length - 1).toBe(1)
    const found = await t.search({ query: 'written after the outage' })
    expect(found.body.results.map((r) => r.path)).toContain('memory/2026-11-28.md')
  })

  it('catches the index up by itself once the database is back, and /ready follows', async () => {
    const { proxy, t } = await appBehindProxy()
    proxy.cut()
    // Changed on disk while the database is away: the sync asked for fails and is not retried
    // by anyone but the service.
    fs.writeFileSync(path.join(t.ws.root, 'memory', 'while-away.md'), '# While away\nthe quartermaster counted ropes\n')
    const failed = await t.app.inject({ method: 'POST', url: '/index?wait=true', payload: {} })
    expect(failed.statusCode).toBe(503)
    expect((await t.app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(503)
    proxy.restore()
    await whenReady(t)
    const found = await t.search({ query: 'quartermaster ropes' })
    expect(found.body.results.map((r) => r.path)).toContain('memory/while-away.md')
  })

  it('creates no agent for a first write refused while the database is away', async () => {
    const agents = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-agents-'))
    cleanups.push(async () => fs.rmSync(agents, { recursive: true, force: true }))
    const { proxy, t } = await appBehindProxy({ MNEMO_AGENTS_DIR: agents })
    const write = () =>
      t.app.inject({
        method: 'PUT',
        url: '/files/memory/first.md',
        headers: { 'content-type': 'text/markdown', 'x-mnemo-agent': 'newcomer' },
        payload: '# First\nthe newcomer arrived during the outage',
      })
    proxy.cut()
    const refused = await write()
    expect(refused.statusCode).toBe(503)
    await waitFor(() => (fs.readdirSync(agents).length === 0 ? true : undefined))
    proxy.restore()
    await whenReady(t)
    const listed = await t.app.inject({ method: 'GET', url: '/agents' })
    expect(listed.json<{ agents: { id: string }[] }>().agents.map((a) => a.id)).toEqual(['main'])
    const written = await write()
    expect(written.statusCode).toBe(201)
    expect(fs.readdirSync(agents)).toEqual(['newcomer'])
  })

  it('is not ready while the database answers without mnemo’s schema', async () => {
    const { t, schema } = await appBehindProxy()
    await whenReady(t)
    await dropSchema(schema)
    const ready = await t.app.inject({ method: 'GET', url: '/ready' })
    expect(ready.statusCode).toBe(503)
    expect(ready.json()).toMatchObject({ ready: false, checks: { database: 'unreachable' } })
  })
})
