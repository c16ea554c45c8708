/**
 * Where a PostgreSQL cold index's time goes (issue 35): one cold index of the benchmark's
 * synthetic workspace by the built service, with
 *  - the database's statements by total time (pg_stat_statements: this loads it with
 *    ALTER SYSTEM and restarts the server through MNEMO_TEST_PG_CTL, which
 *    scripts/with-postgres provides),
 *  - what the service's connections were doing, sampled every 5 ms from pg_stat_activity:
 *    running a statement, waiting inside a transaction for the service's next one, or idle,
 *  - the service's CPU (all its threads), and its event loop's delay (p99 and max),
 * with `--lists`, the same for the impact lists the compaction after that first index builds
 * (src/store/postgres/list-resume.ts): how long they took and their statements by time,
 * and with `--bulk`, what the same rows would cost built in bulk, as a first index nobody
 * reads yet could be: the chunk rows copied into a table without indexes, then its GIN index
 * built, its document frequencies counted and its impact lists ranked, one statement each.
 *
 *   npm run build
 *   scripts/with-postgres scripts/with-node 24 npx tsx bench/pg-cold-profile.ts [--files 400] [--notes 50] [--lists] [--bulk]
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
// eslint-disable-next-line no-restricted-imports -- tooling outside src/ that reads the server's own statistics
import pg from 'pg'
import { impactSql, LIST_KEEP, LIST_MIN_DOC_FREQ } from '../src/store/postgres/impact-lists.js'
import { writeCorpus } from './corpus.js'
import { openEngine } from './engines.js'
import { createClient } from './http-client.js'
import { waitForImpactLists } from './impact-wait.js'
import { cpuMs } from './process-cpu.js'
import { startServer } from './server-process.js'

const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '400' },
    notes: { type: 'string', default: '50' },
    lists: { type: 'boolean', default: false },
    bulk: { type: 'boolean', default: false },
  },
})
const url = process.env.MNEMO_TEST_DATABASE_URL
const ctl = process.env.MNEMO_TEST_PG_CTL
if (!url || !ctl) throw new Error('run under scripts/with-postgres (MNEMO_TEST_DATABASE_URL, MNEMO_TEST_PG_CTL)')

async function connect(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  return client
}

// pg_stat_statements is loaded at start only.
const setup = await connect()
await setup.query(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`)
await setup.end()
execFileSync(ctl, ['fast'])
const admin = await connect()
await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements')

const engine = await openEngine('postgres')
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-pg-cold-'))
const workspace = path.join(tmp, 'workspace')
writeCorpus(workspace, Number(values.files), Number(values.notes))
const dataDir = path.join(tmp, 'data')
const env = engine.env(dataDir)
const schema = env.MNEMO_DATABASE_SCHEMA as string
const server = await startServer({ MNEMO_WORKSPACE: workspace, ...env })

/** Samples the other connections' states until stopped; counts per state. */
function sampleStates() {
  const counts = { running: 0, inTransaction: 0, idle: 0 }
  let stopped = false
  const done = (async () => {
    const c = await connect()
    const own = [(await admin.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid]
    while (!stopped) {
      // (a backend still starting has no state yet)
      const { rows } = await c.query<{ state: string }>(
        `SELECT state FROM pg_stat_activity WHERE backend_type = 'client backend' AND datname = current_database()
           AND pid <> pg_backend_pid() AND pid <> ALL($1::int[]) AND state IS NOT NULL`,
        [own],
      )
      if (rows.some((r) => r.state === 'active')) counts.running++
      else if (rows.some((r) => r.state.startsWith('idle in transaction'))) counts.inTransaction++
      else counts.idle++
      await new Promise((r) => setTimeout(r, 5))
    }
    await c.end()
  })()
  return {
    async stop() {
      stopped = true
      await done
      return counts
    },
  }
}

const pct = (n: number, all: number) => `${((100 * n) / all).toFixed(1)} %`
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`

/** The schema's statements by total time since the last reset, the 10 longest. */
async function printStatements(): Promise<void> {
  const { rows } = await admin.query<{ ms: number; calls: number; query: string }>(
    `SELECT total_exec_time AS ms, calls::int, regexp_replace(query, '\\s+', ' ', 'g') AS query
     FROM pg_stat_statements WHERE query LIKE '%' || $1 || '%' ORDER BY total_exec_time DESC`,
    [`"${schema}"`],
  )
  const total = rows.reduce((sum, r) => sum + r.ms, 0)
  process.stdout.write(`| statement | time | calls | per call |\n|---|---|---|---|\n`)
  for (const r of rows.slice(0, 10)) {
    const text = r.query.replaceAll(`"${schema}".`, '').slice(0, 70).replaceAll('|', '\\|')
    process.stdout.write(`| \`${text}\` | ${s(r.ms)} | ${r.calls} | ${(r.ms / r.calls).toFixed(1)} ms |\n`)
  }
  process.stdout.write(`| all | ${s(total)} | | |\n`)
}

/** The service's event-loop delay p99 and max since the last read, in ms (GET /metrics). */
async function eventLoopDelay(client: ReturnType<typeof createClient>) {
  const { body } = await client.request('GET', '/metrics')
  const read = (name: string) => {
    const seconds = Number(new RegExp(`^mnemo_nodejs_eventloop_lag_${name}_seconds (\\S+)$`, 'm').exec(body)?.[1])
    return Math.round(seconds * 1000)
  }
  return { p99: read('p99'), max: read('max') }
}

try {
  await admin.query('SELECT pg_stat_statements_reset()')
  const cpuBefore = cpuMs(server.pid)
  const states = sampleStates()
  const client = createClient(server.baseUrl)
  // Reading the metrics starts the event loop's delay histogram afresh (prom-client).
  await eventLoopDelay(client)
  const res = await client.indexAll()
  const counts = await states.stop()
  const cpu = cpuMs(server.pid) - cpuBefore
  const delay = await eventLoopDelay(client)
  client.close()
  const status = JSON.parse(res.body) as { chunks: number; lastSync: { durationMs: number } }
  const ms = status.lastSync.durationMs
  const samples = counts.running + counts.inTransaction + counts.idle
  process.stdout.write(
    `${status.chunks} chunks in ${s(ms)} (server-side): ${Math.round((status.chunks / ms) * 1000)} chunks/s; ` +
      `service CPU ${s(cpu)}\n` +
      `the service's connections: a statement running ${pct(counts.running, samples)}, waiting inside a ` +
      `transaction ${pct(counts.inTransaction, samples)}, idle ${pct(counts.idle, samples)} (${samples} samples)\n` +
      `the service's event loop delayed p99 ${delay.p99} ms, at most ${delay.max} ms (what a search arriving waits first)\n\n`,
  )
  await printStatements()
  if (values.lists) {
    await admin.query('SELECT pg_stat_statements_reset()')
    const waited = await waitForImpactLists(engine, dataDir, status.chunks)
    const { rows } = await admin.query<{ inserted: string; kept: string }>(
      `SELECT n_tup_ins AS inserted, (SELECT COUNT(*) FROM "${schema}".postings) AS kept
       FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'postings'`,
      [schema],
    )
    const postings = rows[0]
    process.stdout.write(
      `\nimpact lists built ${s(waited)} after the index (polled every 0.5 s): ` +
        `${postings?.inserted} postings written to keep ${postings?.kept}\n\n`,
    )
    await printStatements()
  }

  if (values.bulk) {
    const steps: [string, string][] = [
      [
        'chunk rows into a table without indexes',
        `CREATE TABLE bulk_chunks (LIKE chunks INCLUDING DEFAULTS) WITH (toast_tuple_target = 8160);
         INSERT INTO bulk_chunks SELECT * FROM chunks`,
      ],
      ['the path index built', 'CREATE INDEX ON bulk_chunks (index_id, path)'],
      ['the GIN index built', 'CREATE INDEX ON bulk_chunks USING gin (keys)'],
      [
        'document frequencies counted',
        `CREATE TABLE bulk_terms AS SELECT u.key, count(*)::int AS df
           FROM bulk_chunks c CROSS JOIN LATERAL unnest(c.keys) AS u(key) GROUP BY u.key;
         ALTER TABLE bulk_terms ADD PRIMARY KEY (key)`,
      ],
      [
        `impact lists (terms in ${LIST_MIN_DOC_FREQ} chunks or more, their best ${LIST_KEEP})`,
        `CREATE TABLE bulk_postings AS SELECT key, id, impact FROM (
           SELECT x.*, rank() OVER (PARTITION BY x.key ORDER BY x.impact DESC) AS place FROM (
             SELECT u.key, c.id,
               ${impactSql('c.counts[2 * u.o - 1]', 'c.counts[2 * u.o]', 'c.token_count', 'ref.tokens')} AS impact
             FROM bulk_chunks c CROSS JOIN LATERAL unnest(c.keys) WITH ORDINALITY AS u(key, o)
             -- Against the index's average length, as impact-lists.ts ranks a list it builds.
             CROSS JOIN (SELECT avg(token_count)::float8 AS tokens FROM bulk_chunks) ref
             WHERE u.key IN (SELECT key FROM bulk_terms WHERE df >= ${LIST_MIN_DOC_FREQ})) x) r
         WHERE place <= ${LIST_KEEP}`,
      ],
    ]
    await admin.query(`SET search_path = "${schema}"`)
    process.stdout.write(`\n| bulk step | time |\n|---|---|\n`)
    let bulk = 0
    for (const [name, sql] of steps) {
      const started = performance.now()
      await admin.query(sql)
      const took = performance.now() - started
      bulk += took
      process.stdout.write(`| ${name} | ${s(took)} |\n`)
    }
    process.stdout.write(`| all | ${s(bulk)} |\n`)
  }
} finally {
  await server.stop()
  await admin.end()
  await engine.drop(dataDir)
  await engine.close()
  fs.rmSync(tmp, { recursive: true, force: true })
}
