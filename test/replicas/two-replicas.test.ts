/**
 * Two mnemo processes on one PostgreSQL database and one workspace (SPEC §10), as two
 * replicas behind a load balancer would be: writes through either are never lost or
 * doubled, a write through one is found through the other when it answers, a rebuild on one
 * never shows the other an empty or failed search, and a replica killed mid-rebuild leaves
 * nothing a later start does not clean up. Needs a real server (MNEMO_TEST_DATABASE_URL;
 * `.ci/run` starts PostgreSQL 15): PGlite is one session, whose advisory locks cannot keep
 * two processes apart.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { startService, type ServiceProcess } from '../helpers/service-process.js'
import { postJson } from '../helpers/post-json.js'
import { waitFor } from '../helpers/wait-for.js'

const DATABASE_URL = process.env.MNEMO_TEST_DATABASE_URL

type Hit = { path: string; startLine: number; endLine: number }

const services: ServiceProcess[] = []
const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const s of services.splice(0)) s.kill('SIGKILL')
  await Promise.all(services.map((s) => s.exited))
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function sql<R extends object>(text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: DATABASE_URL })
  await client.connect()
  try {
    return (await client.query<R>(text)).rows
  } finally {
    await client.end()
  }
}

/** A workspace and a schema two replicas share, each replica with its own data dir. */
function cluster() {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-replicas-')))
  const workspace = path.join(base, 'workspace')
  fs.mkdirSync(path.join(workspace, 'memory'), { recursive: true })
  fs.writeFileSync(path.join(workspace, 'MEMORY.md'), '# Facts\nThe lighthouse keeper is called Ingrid.\n')
  const schema = `r_${path
    .basename(base)
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase()}`
  cleanups.push(() => fs.rmSync(base, { recursive: true, force: true }))
  cleanups.push(async () => void (await sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)))
  const start = (name: string) => {
    const proc = startService(
      {
        MNEMO_WORKSPACE: workspace,
        MNEMO_DATA_DIR: path.join(base, `data-${name}`),
        MNEMO_DATABASE_URL: DATABASE_URL as string,
        MNEMO_DATABASE_SCHEMA: schema,
        MNEMO_EMBED_PROVIDER: 'none',
        MNEMO_WATCH: 'false',
      },
      base,
    )
    services.push(proc)
    return proc
  }
  return { base, workspace, schema, start }
}

const search = async (url: string, query: string) =>
  postJson<{ results: Hit[]; code?: string }>(`${url}/search`, { query, maxResults: 20 })

describe.skipIf(!DATABASE_URL)('two replicas on one PostgreSQL', () => {
  it('land concurrent flushes through both in the day file once each, retries included', async () => {
    const c = cluster()
    const [a, b] = await Promise.all([c.start('a').ready(), c.start('b').ready()])
    const flush = (url: string, i: number) =>
      postJson<{ path: string }>(`${url}/flush`, {
        date: '2026-03-01',
        flushId: `f-${i}`,
        entries: [`note number ${i} says zebra${i}`],
      })
    // Each flush is sent to one replica and retried on the other, all at once.
    const sends = Array.from({ length: 40 }, (_, i) => [flush(i % 2 ? a : b, i), flush(i % 2 ? b : a, i)]).flat()
    const answers = await Promise.all(sends)
    expect(answers.every((r) => r.status === 200 || r.status === 201)).toBe(true)
    const day = fs.readFileSync(path.join(c.workspace, 'memory', '2026-03-01.md'), 'utf8')
    for (let i = 0; i < 40; i++) {
      expect(day.split(`says zebra${i}\n`).length - 1, `flush ${i}`).toBe(1)
    }
  })

  it('find a write through one replica through the other as soon as it answers', async () => {
    const c = cluster()
    const [a, b] = await Promise.all([c.start('a').ready(), c.start('b').ready()])
    for (let i = 0; i < 10; i++) {
      const put = await fetch(`${a}/files/memory/topic-${i}.md`, {
        method: 'PUT',
        headers: { 'content-type': 'text/markdown' },
        body: `# Topic ${i}\nthe quartermaster${i} keeps the ledger`,
      })
      expect(put.status).toBe(201)
      const found = await search(b, `quartermaster${i}`)
      expect(found.body.results.map((r) => r.path)).toContain(`memory/topic-${i}.md`)
    }
  })

  it('keep searching through one replica while the other rebuilds, and clean up after one killed mid-rebuild', async () => {
    const c = cluster()
    for (let d = 1; d <= 40; d++) {
      const lines = Array.from({ length: 400 }, (_, i) => `- note ${i} on project ${d} about 记忆 ${i % 40}`)
      fs.writeFileSync(path.join(c.workspace, 'memory', `file-${d}.md`), `# File ${d}\n${lines.join('\n')}\n`)
    }
    const procA = c.start('a')
    const [a, b] = await Promise.all([procA.ready(), c.start('b').ready()])
    let searching = true
    let phase = 'rebuild'
    const failures: string[] = []
    const searcher = (async () => {
      while (searching) {
        const res = await search(b, 'lighthouse keeper Ingrid')
        if (res.status !== 200 || !res.body.results.some((r) => r.path === 'MEMORY.md')) {
          failures.push(`${res.status} ${res.body.code ?? res.body.results.length} at ${phase}`)
        }
      }
    })()
    const rebuilding = postJson<{ done: boolean }>(`${a}/index?wait=true`, { full: true })
    await waitFor(async () => {
      const rows = await sql<{ n: number }>(
        `SELECT COUNT(*)::int AS n FROM "${c.schema}".indexes WHERE state = 'building'`,
      )
      return rows[0]?.n === 1 ? true : undefined
    })
    // A write through the other replica while this one rebuilds is in the index swapped in.
    const put = await fetch(`${b}/files/memory/during.md`, {
      method: 'PUT',
      headers: { 'content-type': 'text/markdown' },
      body: '# During\nthe harbourmaster logged a late ferry',
    })
    expect(put.status).toBe(201)
    expect((await rebuilding).status).toBe(200)
    for (const url of [a, b]) {
      const found = await search(url, 'harbourmaster ferry')
      expect(found.body.results.map((r) => r.path)).toContain('memory/during.md')
    }
    phase = 'second rebuild'
    // A second rebuild, killed half-way.
    // Its answer never comes: the replica is killed before it.
    postJson(`${a}/index`, { full: true }).catch(() => undefined)
    const building = await waitFor(async () => {
      const rows = await sql<{ id: number }>(`SELECT id::int FROM "${c.schema}".indexes WHERE state = 'building'`)
      return rows[0]?.id
    })
    phase = 'kill'
    procA.kill('SIGKILL')
    await procA.exited
    searching = false
    await searcher
    expect(failures).toEqual([])
    // Its lease would lapse in a minute; a restart then retires the half-built index.
    await sql(`UPDATE "${c.schema}".indexes SET lease_until = now() - interval '1 second' WHERE state = 'building'`)
    await c.start('a2').ready()
    await waitFor(async () => {
      const rows = await sql<{ n: number }>(
        `SELECT (SELECT COUNT(*) FROM "${c.schema}".indexes WHERE id = ${building})
           + (SELECT COUNT(*) FROM "${c.schema}".chunks WHERE index_id = ${building}) AS n`,
      )
      return Number(rows[0]?.n) === 0 ? true : undefined
    }, 20_000)
    const after = await search(b, 'lighthouse keeper Ingrid')
    expect(after.body.results.map((r) => r.path)).toContain('MEMORY.md')
  })
})
