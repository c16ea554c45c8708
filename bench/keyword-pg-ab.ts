/**
 * Keyword /search of several builds side by side on one index (issue 35): each build's
 * dist/main.js serves the same PostgreSQL schema (or, named `sqlite:label=…`, a SQLite index
 * of its own in a data dir) of the benchmark workspace (bench/corpus.ts, --files × --notes),
 * and rounds alternate between the builds, so load on a shared machine falls on all of them
 * alike. A round is the 500 typical queries one after another, then 16 clients for
 * --duration s.
 *
 *   scripts/with-node 24 npx tsx bench/keyword-pg-ab.ts --url postgres://… --files 2000 --rounds 3 \
 *     before=/path/to/worktree after=/path/to/other sqlite:after=/path/to/other
 *
 * The schema is built by the first build on the first run and kept (`kw_<files>x<notes>`);
 * with --own-schemas each build builds and keeps its own (`kw_<files>x<notes>_<label>`), for
 * builds of different schema versions, and the time each took to index is printed.
 * Prints each build's medians over rounds of p50, p99 and req/s, its CPU ms per search (from
 * /proc) and, on PostgreSQL, the database's ms per search (pg_stat_statements, when the
 * server loads it) and the CPU ms its processes spent per search (when it runs on this
 * machine), and how many queries' results differ from the first build's.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
// eslint-disable-next-line no-restricted-imports -- tooling outside src/ that reads the server's statement statistics
import pg from 'pg'
import { makeQueries, writeCorpus } from './corpus.js'
import { createClient } from './http-client.js'
import { startServer } from './server-process.js'
import { cpuMs } from './process-cpu.js'
import { pgListsKept, sqliteListsBuilt } from './engines.js'
import { waitForImpactLists } from './impact-wait.js'
import { median, percentile } from './stats.js'

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: 'string', default: '3' },
    files: { type: 'string', default: '400' },
    notes: { type: 'string', default: '50' },
    duration: { type: 'string', default: '10' },
    url: { type: 'string', default: process.env.MNEMO_TEST_DATABASE_URL ?? '' },
    dir: { type: 'string', default: path.join(os.tmpdir(), 'mnemo-keyword-pg-ab') },
    'own-schemas': { type: 'boolean', default: false },
  },
})
const onPostgres = positionals.some((p) => !p.startsWith('sqlite:'))
if (onPostgres && !values.url) throw new Error('--url (or MNEMO_TEST_DATABASE_URL) names the PostgreSQL server')
const tag = `${values.files}x${values.notes}`
/** The schema a build serves (one for all, unless --own-schemas). */
const schemaOf = (label: string): string =>
  values['own-schemas'] ? `kw_${tag}_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}` : `kw_${tag}`
const workspace = path.join(values.dir, `workspace-${tag}`)
if (!fs.existsSync(workspace)) writeCorpus(workspace, Number(values.files), Number(values.notes))
const queries = makeQueries(500)

/**
 * CPU ms so far of each process of a PostgreSQL server on this machine, by pid: what the
 * database spends on a search beyond its statements (the protocol, waking for each round
 * trip), which pg_stat_statements does not count. Empty when the server runs elsewhere.
 */
function postgresCpu(): Map<number, number> {
  const out = new Map<number, number>()
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres')
        out.set(Number(entry), cpuMs(Number(entry)))
    } catch {
      // exited meanwhile
    }
  }
  return out
}

/** CPU ms the server's processes spent since `before` (one started meanwhile counts from 0, one that ended is lost). */
function postgresCpuSince(before: Map<number, number>): number {
  let ms = 0
  for (const [pid, now] of postgresCpu()) ms += now - (before.get(pid) ?? 0)
  return ms
}

const db = onPostgres ? new pg.Client({ connectionString: values.url }) : null
await db?.connect()
const tracked = db
  ? (await db.query("SELECT 1 FROM pg_extension WHERE extname = 'pg_stat_statements'")).rows.length > 0
  : false
/** ms the database spent planning and running this schema's statements so far (0: not tracked). */
async function dbMs(label: string): Promise<number> {
  if (!db || !tracked) return 0
  const { rows } = await db.query<{ ms: number }>(
    `SELECT COALESCE(SUM(total_exec_time + total_plan_time), 0)::float8 AS ms FROM pg_stat_statements
     WHERE query LIKE $1`,
    [`%"${schemaOf(label)}"%`],
  )
  return rows[0]?.ms ?? 0
}

async function start(label: string, root: string, sqlite: boolean) {
  const dataDir = path.join(values.dir, `data-${tag}-${label.replace(/^sqlite:/, '')}${sqlite ? '-sqlite' : ''}`)
  const server = await startServer(
    {
      MNEMO_WATCH: 'false',
      MNEMO_WORKSPACE: workspace,
      MNEMO_DATA_DIR: dataDir,
      ...(!sqlite && { MNEMO_DATABASE_URL: values.url, MNEMO_DATABASE_SCHEMA: schemaOf(label) }),
    },
    { main: path.join(root, 'dist/main.js') },
  )
  const client = createClient(server.baseUrl)
  const indexing = performance.now()
  const { chunks } = JSON.parse((await client.indexAll()).body) as { chunks: number }
  process.stdout.write(
    `${label}: indexed (or found indexed) in ${((performance.now() - indexing) / 1000).toFixed(1)} s\n`,
  )
  // Measured on the index as it serves from then on, not while it builds its lists.
  const waited = await waitForImpactLists(
    {
      listsBuilt: (dir, n) => (sqlite ? sqliteListsBuilt(dir, n) : pgListsKept(values.url, schemaOf(label))),
    },
    dataDir,
    chunks,
  )
  if (waited > 0) process.stdout.write(`${label}: impact lists built ${(waited / 1000).toFixed(1)} s later\n`)
  for (const query of queries.slice(0, 200)) await client.request('POST', '/search', { query })
  const stop = async () => {
    client.close()
    await server.stop()
  }
  const samples = {
    p50: [] as number[],
    p99: [] as number[],
    rps: [] as number[],
    cpu: [] as number[],
    db: [] as number[],
    server: [] as number[],
  }
  return {
    label,
    baseUrl: server.baseUrl,
    client,
    stop,
    pid: server.pid as number,
    samples,
    refused: 0,
    answers: new Map<string, string>(),
  }
}

type Build = Awaited<ReturnType<typeof start>>

/** One round of a build: the queries in turn, then 16 clients. */
async function round(b: Build, first: boolean) {
  const ms: number[] = []
  const cpu0 = cpuMs(b.pid)
  const db0 = await dbMs(b.label)
  const server0 = postgresCpu()
  for (const query of queries) {
    let res = await b.client.request('POST', '/search', { query })
    // Shed by a loaded machine (503 OVERLOADED, retry after 2 s): asked again, not timed.
    while (res.status === 503) {
      await new Promise((r) => setTimeout(r, 2000))
      res = await b.client.request('POST', '/search', { query })
    }
    if (res.status !== 200) throw new Error(`${b.label}: ${res.status} ${res.body}`)
    if (first) b.answers.set(query, JSON.stringify((JSON.parse(res.body) as { results: unknown }).results))
    ms.push(res.ms)
  }
  b.samples.cpu.push((cpuMs(b.pid) - cpu0) / queries.length)
  b.samples.db.push(((await dbMs(b.label)) - db0) / queries.length)
  b.samples.server.push(postgresCpuSince(server0) / queries.length)
  b.samples.p50.push(percentile(ms, 50))
  b.samples.p99.push(percentile(ms, 99))
  const result = await autocannon({
    url: b.baseUrl,
    connections: 16,
    duration: Number(values.duration),
    requests: queries.map((query) => ({
      method: 'POST' as const,
      path: '/search',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    })),
  })
  b.samples.rps.push(result.requests.average)
  b.refused += result.non2xx
}

const builds: Build[] = []
for (const arg of positionals) {
  const [name, root] = arg.split('=') as [string, string]
  builds.push(await start(name, root, name.startsWith('sqlite:')))
}
for (let r = 0; r < Number(values.rounds); r++) {
  for (const b of r % 2 === 0 ? builds : [...builds].reverse()) await round(b, r === 0)
}
const first = builds[0] as Build
for (const b of builds) {
  await b.stop()
  const differing = [...b.answers].filter(([query, answer]) => first.answers.get(query) !== answer).length
  const f = (xs: number[], digits = 2) =>
    `${median(xs).toFixed(digits)} (${xs.map((x) => x.toFixed(digits)).join(' ')})`
  const { p50, p99, rps, cpu, db: dbTimes, server } = b.samples
  process.stdout.write(
    `${b.label}: p50 ${f(p50)} ms, p99 ${f(p99)} ms, 16 clients ${f(rps, 0)} req/s (${b.refused} not 2xx), ` +
      `service CPU ${f(cpu)} ms/search, database ${f(dbTimes)} ms/search (its processes' CPU ${f(server)}), ` +
      `results differing from ${first.label}: ${differing}\n`,
  )
}
await db?.end()
