/**
 * npm run bench: builds the service, runs the benchmarks against dist/main.js in a child
 * process, prints a table (medians of --runs runs) and writes bench-results/<name>.json.
 *
 *   npm run bench -- [--runs 3] [--duration 10] [--files 200] [--notes 50]
 *                    [--only keyword,hybrid,live,agents,replicas,start,entries,users,searchlog,console,tokens]
 *                    [--hybrid-sizes 10000,100000]
 *                    [--agents 200] [--agent-files 10] [--engines sqlite,postgres,pglite] [--writes 100]
 *                    [--qmd /tmp/qmd/node_modules/.bin/qmd] (with --only start: QMD indexes the same files)
 *
 * `--engines` runs the keyword, hybrid and replicas benchmarks once per engine, side by side
 * (bench/engines.ts: postgres needs MNEMO_TEST_DATABASE_URL, as scripts/with-postgres sets;
 * pglite starts PGlite with pgvector); live and start run on SQLite only. `entries`
 * (issue 31) compares search latency on the workspace with and without entry metadata,
 * `--superseded 0.3` of the entries superseded. `users` (issue 32) compares search latency of
 * an agent with `--users 1000` users of `--user-notes 100` notes each, searched with a user,
 * against the same agent memory without users (bench/users.ts). `searchlog` (issue 33)
 * compares search latency with the search log on and off (bench/search-log.ts). `console`
 * (issue 33) times the web console's first view in Chromium (bench/console.ts; SQLite).
 * `tokens` (issue 34) counts what a memory_search and a memory_get result cost a model over
 * MCP, text and structured content (bench/recall-tokens.ts; SQLite).
 */
import { execSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { benchAgents } from './agents.js'
import { benchEntries } from './entries.js'
import { ENGINE_NAMES, openEngine, type BenchEngine, type EngineName } from './engines.js'
import { benchHybrid } from './hybrid.js'
import { benchKeyword } from './keyword.js'
import { benchLive } from './live.js'
import { benchReplicas } from './replicas.js'
import { benchStart } from './start.js'
import { benchUsers } from './users.js'
import { benchSearchLog } from './search-log.js'
import { benchConsole } from './console.js'
import { benchRecallTokens } from './recall-tokens.js'
import { refusedNote } from './measure.js'
import { fmt } from './stats.js'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    // Cold indexes of the keyword benchmark (default: --runs); its searches still run --runs passes.
    'index-runs': { type: 'string' },
    duration: { type: 'string', default: '10' },
    files: { type: 'string', default: '200' },
    notes: { type: 'string', default: '50' },
    'latency-requests': { type: 'string', default: '2000' },
    'hybrid-sizes': { type: 'string', default: '10000,100000' },
    only: { type: 'string', default: 'keyword,hybrid,live' },
    engines: { type: 'string', default: 'sqlite' },
    edits: { type: 'string', default: '40' },
    'debounced-edits': { type: 'string', default: '12' },
    flushes: { type: 'string', default: '200' },
    writes: { type: 'string', default: '100' },
    out: { type: 'string', default: 'bench-results' },
    agents: { type: 'string', default: '200' },
    'agent-files': { type: 'string', default: '10' },
    qmd: { type: 'string' },
    superseded: { type: 'string', default: '0.3' },
    users: { type: 'string', default: '1000' },
    'user-notes': { type: 'string', default: '100' },
  },
})

const engineNames = values.engines.split(',').map((name) => {
  if (!(ENGINE_NAMES as readonly string[]).includes(name)) throw new Error(`unknown engine ${name}`)
  return name as EngineName
})
const only = new Set(values.only.split(','))
if ((only.has('live') || only.has('start')) && !engineNames.includes('sqlite'))
  throw new Error('live and start run on SQLite only: add sqlite to --engines')
execSync('npm run build', { stdio: 'inherit' })
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-bench-'))
const runs = Number(values.runs)
const engines: BenchEngine[] = []
for (const name of engineNames) engines.push(await openEngine(name))

type Row<R> = [name: string, value: (r: R) => string, target: string]
/** Prints a table with a column per result (one per engine), each a median of `runs` runs. */
function table<R>(title: string, columns: [string, R][], rows: Row<R>[]) {
  const heads = columns.map(([name]) => (columns.length > 1 ? `${name}, median of ${runs}` : `median of ${runs} runs`))
  process.stdout.write(`\n### ${title}\n\n| measure | ${heads.join(' | ')} | target |\n`)
  process.stdout.write(`|---|${heads.map(() => '---|').join('')}---|\n`)
  for (const [name, value, target] of rows)
    process.stdout.write(`| ${name} | ${columns.map(([, r]) => value(r)).join(' | ')} | ${target} |\n`)
}
/** Runs `bench` once per engine, each in a folder of its own; results by engine name. */
async function perEngine<R>(key: string, bench: (engine: BenchEngine, dir: string) => Promise<R>) {
  const columns: [string, R][] = []
  for (const engine of engines) {
    const dir = path.join(tmp, `${key}-${engine.name}`)
    fs.mkdirSync(dir, { recursive: true })
    columns.push([engine.name, await bench(engine, dir)])
  }
  results[key] = Object.fromEntries(columns)
  return columns
}
/** A table of one SQLite result whose values are already formatted (live, start). */
const sqliteTable = (title: string, rows: [string, string, string][]) =>
  table(
    title,
    [['sqlite', null]],
    rows.map(([name, value, target]): Row<null> => [name, () => value, target]),
  )
/** A ratio as a change in percent: 1.04 → +4 %. */
const pct = (ratio: number) => `${ratio >= 1 ? '+' : ''}${fmt((ratio - 1) * 100)} %`
const results: Record<string, unknown> = { at: new Date().toISOString(), cpus: os.cpus().length }
try {
  if (only.has('keyword')) {
    const columns = await perEngine('keyword', (engine, dir) =>
      benchKeyword({
        tmp: dir,
        engine,
        runs,
        indexRuns: Number(values['index-runs'] ?? runs),
        durationSec: Number(values.duration),
        files: Number(values.files),
        notesPerFile: Number(values.notes),
        latencyRequests: Number(values['latency-requests']),
      }),
    )
    table('Keyword search (no embedding provider)', columns, [
      ['chunks indexed', (k) => String(k.chunks), ''],
      ['cold index (server-side)', (k) => `${fmt(k.coldIndexServerMs)} ms`, '≤ 5000 ms'],
      ['cold index throughput', (k) => `${fmt(k.chunksPerSec)} chunks/s`, ''],
      ['impact lists built after it (background)', (k) => `${fmt(k.impactListsMs)} ms`, ''],
      [
        'common-word search right after it, no write before, p50 / max',
        (k) => `${fmt(k.afterIndex.quietCommonP50Ms)} / ${fmt(k.afterIndex.quietCommonMaxMs)} ms`,
        '',
      ],
      ['re-scan of the unchanged workspace right after it', (k) => `${fmt(k.afterIndex.rescanMs)} ms`, ''],
      [
        'write p50 / max right after it',
        (k) => `${fmt(k.afterIndex.writeP50Ms)} / ${fmt(k.afterIndex.writeMaxMs)} ms`,
        '',
      ],
      [
        'search for the word just written, p50 / max, right after it',
        (k) => `${fmt(k.afterIndex.searchP50Ms)} / ${fmt(k.afterIndex.searchMaxMs)} ms`,
        '',
      ],
      [
        'common-word search after each of those writes, p50 / max',
        (k) => `${fmt(k.afterIndex.commonP50Ms)} / ${fmt(k.afterIndex.commonMaxMs)} ms`,
        '',
      ],
      ['keyword /search p50, 1 client', (k) => `${fmt(k.searchP50Ms)} ms`, '≤ 3 ms'],
      ['keyword /search p99, 1 client', (k) => `${fmt(k.searchP99Ms)} ms`, '≤ 10 ms'],
      [
        'common-word queries p50 / p99 (worst case)',
        (k) => `${fmt(k.commonWordP50Ms)} / ${fmt(k.commonWordP99Ms)} ms`,
        '',
      ],
      [
        'keyword /search throughput, 16 clients',
        (k) => `${fmt(k.searchesPerSec)} req/s${refusedNote(k.searchesRefused)}`,
        '≥ 1500 req/s',
      ],
      ['queries without results', (k) => `${k.queriesWithoutResults} / ${k.queries}`, ''],
      ['server RSS after the runs', (k) => `${fmt(k.rssMb)} MB`, ''],
      ['index on disk per chunk', (k) => `${fmt(k.diskBytesPerChunk)} bytes`, ''],
    ])
  }
  if (only.has('hybrid')) {
    for (const size of values['hybrid-sizes'].split(',').map(Number)) {
      const large = size >= 50_000
      const columns = await perEngine(`hybrid${size}`, (engine, dir) =>
        benchHybrid({
          tmp: dir,
          engine,
          runs,
          durationSec: Number(values.duration),
          chunks: size,
          latencyRequests: large ? 300 : 1000,
        }),
      )
      table(`Hybrid search, hash embeddings, ${columns[0]?.[1].chunks} chunks`, columns, [
        [
          'cold index throughput',
          (h) => `${fmt(h.chunksPerSec)} chunks/s (${fmt(h.coldIndexMs / 1000)} s)`,
          '≥ 2000 chunks/s',
        ],
        [
          're-index of the unchanged workspace: files indexed / texts embedded',
          (h) => `${h.reindexIndexed} / ${h.reindexEmbedded}`,
          '0 embedding calls',
        ],
        ['impact lists built after it (background)', (h) => `${fmt(h.impactListsMs)} ms`, ''],
        ['hybrid /search p50, 1 client', (h) => `${fmt(h.p50Ms)} ms`, large ? '≤ 20 ms' : '≤ 8 ms'],
        ['hybrid /search p99, 1 client', (h) => `${fmt(h.p99Ms)} ms`, ''],
        [
          'hybrid /search throughput, 16 clients',
          (h) => `${fmt(h.searchesPerSec)} req/s${refusedNote(h.searchesRefused)}`,
          '',
        ],
        ['server RSS after the runs', (h) => `${fmt(h.rssMb)} MB`, large ? '≤ 400 MB' : ''],
      ])
    }
  }
  if (only.has('entries')) {
    const columns = await perEngine('entries', (engine, dir) =>
      benchEntries({
        tmp: dir,
        engine,
        runs,
        files: Number(values.files),
        notesPerFile: Number(values.notes),
        latencyRequests: Number(values['latency-requests']),
        superseded: Number(values.superseded),
      }),
    )
    table(`Entries: search with ${values.superseded} of the entries superseded, against no metadata`, columns, [
      ['entries / superseded', (e) => `${e.entries} / ${e.superseded}`, ''],
      [
        'keyword /search p50, no metadata → entries',
        (e) => `${fmt(e.keyword.plainMs)} → ${fmt(e.keyword.entriesMs)} ms (${pct(e.keyword.ratio)})`,
        'within 5 %',
      ],
      [
        'hybrid /search p50 (hash vectors), no metadata → entries',
        (e) => `${fmt(e.hybrid.plainMs)} → ${fmt(e.hybrid.entriesMs)} ms (${pct(e.hybrid.ratio)})`,
        'within 5 %',
      ],
      [
        '/flush p50: plain → entry (origin) → entry with a key',
        (e) => `${fmt(e.flush.plainMs)} → ${fmt(e.flush.entryMs)} → ${fmt(e.flush.keyedMs)} ms`,
        '',
      ],
    ])
  }
  if (only.has('users')) {
    const columns = await perEngine('users', (engine, dir) =>
      benchUsers({
        tmp: dir,
        engine,
        runs,
        files: Number(values.files),
        notesPerFile: Number(values.notes),
        users: Number(values.users),
        userNotes: Number(values['user-notes']),
        latencyRequests: Number(values['latency-requests']),
      }),
    )
    table(`Users: search with a user among ${values.users}, against the same agent memory without users`, columns, [
      ['users / chunks per user (median)', (u) => `${u.users} / ${u.chunksPerUser}`, ''],
      ['set-up: index both agents and every user', (u) => `${fmt(u.setupS)} s`, ''],
      [
        'keyword /search p50, no users → with a user',
        (u) => `${fmt(u.keyword.plainMs)} → ${fmt(u.keyword.userMs)} ms (${pct(u.keyword.ratio)})`,
        'within 10 %',
      ],
      [
        'hybrid /search p50 (hash vectors), no users → with a user',
        (u) => `${fmt(u.hybrid.plainMs)} → ${fmt(u.hybrid.userMs)} ms (${pct(u.hybrid.ratio)})`,
        'within 10 %',
      ],
      [
        'keyword /search p50 / p99, a user at random (most closed)',
        (u) => `${fmt(u.randomUser.p50Ms)} / ${fmt(u.randomUser.p99Ms)} ms`,
        '',
      ],
    ])
  }
  if (only.has('tokens')) {
    const dir = path.join(tmp, 'tokens')
    fs.mkdirSync(dir, { recursive: true })
    const r = await benchRecallTokens({
      tmp: dir,
      files: Number(values.files),
      notesPerFile: Number(values.notes),
      queries: 100,
    })
    results.tokens = r
    const row = (name: string, c: typeof r.search): [string, string, string] => [
      name,
      `${fmt(c.text)} + ${fmt(c.structured)} = ${fmt(c.total)}`,
      '',
    ]
    sqliteTable(
      `Tokens per recall over MCP (${r.searches} searches, ${fmt(r.resultsPerSearch)} results each): text + structured`,
      [row('memory_search result, mean tokens', r.search), row('memory_get result (10 lines), mean tokens', r.get)],
    )
  }
  if (only.has('console')) {
    const dir = path.join(tmp, 'console')
    fs.mkdirSync(dir, { recursive: true })
    const c = await benchConsole({ tmp: dir, runs, files: Number(values.files), notesPerFile: Number(values.notes) })
    results.console = c
    sqliteTable(`Console: first view in Chromium, a fresh browser context each load (${runs * 10} loads)`, [
      ['sign-in form ready, p50 / p95', `${fmt(c.signIn.p50Ms)} / ${fmt(c.signIn.p95Ms)} ms`, 'within 1 s'],
      [
        'overview with its agents, signed in, p50 / p95',
        `${fmt(c.overview.p50Ms)} / ${fmt(c.overview.p95Ms)} ms`,
        'within 1 s',
      ],
    ])
  }
  if (only.has('searchlog')) {
    const columns = await perEngine('searchlog', (engine, dir) =>
      benchSearchLog({
        tmp: dir,
        engine,
        runs,
        files: Number(values.files),
        notesPerFile: Number(values.notes),
        latencyRequests: Number(values['latency-requests']),
      }),
    )
    table('Search log: /search with the log on, against off', columns, [
      [
        'keyword /search p50, off → on',
        (l) => `${fmt(l.keyword.offMs)} → ${fmt(l.keyword.onMs)} ms (${pct(l.keyword.ratio)})`,
        'within 5 %',
      ],
      [
        'hybrid /search p50 (hash vectors), off → on',
        (l) => `${fmt(l.hybrid.offMs)} → ${fmt(l.hybrid.onMs)} ms (${pct(l.hybrid.ratio)})`,
        'within 5 %',
      ],
      ['searches listed by GET /searches?limit=1000 afterwards', (l) => String(l.listed), '1000'],
    ])
  }
  if (only.has('replicas')) {
    const columns = await perEngine('replicas', (engine, dir) =>
      benchReplicas({
        tmp: dir,
        engine,
        runs,
        writes: Number(values.writes),
        files: Number(values.files),
        notesPerFile: Number(values.notes),
      }),
    )
    table('Write through replica A → found by a search on replica B', columns, [
      ['replicas (SQLite: A and B are one process)', (r) => String(r.replicas), ''],
      ['PUT → found on B p50 / p95', (r) => `${fmt(r.foundP50Ms)} / ${fmt(r.foundP95Ms)} ms`, 'p95 ≤ 100 ms'],
      ['PUT → found on B, slowest of every run', (r) => `${fmt(r.foundMaxMs)} ms`, ''],
      ['PUT p50 / p95', (r) => `${fmt(r.putP50Ms)} / ${fmt(r.putP95Ms)} ms`, ''],
      ['found by the first search after the PUT answered', (r) => `${r.foundByFirstSearch} / ${r.writes}`, ''],
    ])
  }
  if (only.has('live')) {
    const live = await benchLive({
      tmp,
      runs,
      files: Number(values.files),
      notesPerFile: Number(values.notes),
      edits: Number(values.edits),
      debouncedEdits: Number(values['debounced-edits']),
      flushes: Number(values.flushes),
      searches: Number(values['latency-requests']),
    })
    results.live = live
    sqliteTable(`Live sync, ${live.chunks} chunks (no embedding provider)`, [
      ['edit on disk → searchable p50 / p95, debounce 0', `${fmt(live.editP50)} / ${fmt(live.editP95)} ms`, '≤ 300 ms'],
      [
        'edit on disk → searchable p50 / p95, debounce 1500 ms',
        `${fmt(live.debouncedP50)} / ${fmt(live.debouncedP95)} ms`,
        '≤ 1800 ms',
      ],
      [
        'edit on disk → searchable p50 / p95, debounce 1500 ms, a search waiting',
        `${fmt(live.searchedP50)} / ${fmt(live.searchedP95)} ms`,
        '',
      ],
      ['/flush p50 / p95 (indexed when it answers)', `${fmt(live.flushP50)} / ${fmt(live.flushP95)} ms`, 'p95 ≤ 30 ms'],
      ['/flush → searchable p95 (flush + one search)', `${fmt(live.flushSearchableP95)} ms`, ''],
      ['full rebuild (new index, swap)', `${fmt(live.rebuildMs)} ms`, ''],
      ['keyword /search p50 / p99 idle', `${fmt(live.idleP50)} / ${fmt(live.idleP99)} ms`, ''],
      [
        'keyword /search p50 / p99 during rebuilds',
        `${fmt(live.rebuildP50)} / ${fmt(live.rebuildP99)} ms (${fmt(live.rebuildP99 / live.idleP99)}× idle p99)`,
        '≤ 2× idle p99',
      ],
    ])
  }
  if (only.has('start')) {
    const start = await benchStart({
      tmp,
      runs,
      files: Number(values.files),
      notesPerFile: Number(values.notes),
      qmd: values.qmd,
    })
    results.start = start
    sqliteTable(`Start-up: empty workspace, and ${start.chunks} chunks to index (keyword)`, [
      ['spawn → /ready 200, empty workspace', `${fmt(start.emptyReadyMs)} ms`, '≤ 400 ms'],
      ['CPU the server used by then (all threads)', `${fmt(start.emptyReadyCpuMs)} ms`, ''],
      [
        'spawn → /ready 200 and a search finds, first sync of the workspace',
        `${fmt(start.coldSearchableMs)} ms`,
        '≤ QMD',
      ],
      ['CPU the server used by then (all threads)', `${fmt(start.coldSearchableCpuMs)} ms`, ''],
      [
        'QMD `qmd collection add` of the same files (--qmd)',
        values.qmd ? `${fmt(start.qmdIndexMs)} ms` : 'not run',
        '',
      ],
    ])
  }
  if (only.has('agents')) {
    const columns = await perEngine('agents', (engine, dir) =>
      benchAgents({
        tmp: dir,
        engine,
        runs,
        agents: Number(values.agents),
        filesPerAgent: Number(values['agent-files']),
        notesPerFile: Number(values.notes),
        latencyRequests: Number(values['latency-requests']),
      }),
    )
    const first = columns[0]?.[1]
    table(`Many agents: ${first?.agents} agents × ${first?.chunksPerAgent} chunks (keyword)`, columns, [
      [
        'search p50 / p99, warm agent',
        (agents) => `${fmt(agents.warmAgentP50Ms)} / ${fmt(agents.warmAgentP99Ms)} ms`,
        '≤ 1.2× single agent',
      ],
      [
        'search p50 / p99, single agent (main, same size, same process)',
        (agents) => `${fmt(agents.singleAgentP50Ms)} / ${fmt(agents.singleAgentP99Ms)} ms`,
        '',
      ],
      [
        'warm agent / single agent, p50 and p99',
        (agents) =>
          `${fmt(agents.warmAgentP50Ms / agents.singleAgentP50Ms)}× / ${fmt(agents.warmAgentP99Ms / agents.singleAgentP99Ms)}×`,
        '≤ 1.2×',
      ],
      [
        'first search on a closed agent p50 / p95 / p99 (open + answer)',
        (agents) =>
          `${fmt(agents.firstSearchP50Ms)} / ${fmt(agents.firstSearchP95Ms)} / ${fmt(agents.firstSearchP99Ms)} ms`,
        'p95 ≤ 50 ms',
      ],
      ['server RSS after touching every agent', (agents) => `${fmt(agents.rssMb)} MB`, '≤ 500 MB'],
      ['index on disk per chunk', (agents) => `${fmt(agents.diskBytesPerChunk)} bytes`, ''],
      [
        'spawn → /ready, no agents / every agent indexed',
        (agents) => `${fmt(agents.readyEmptyMs)} / ${fmt(agents.readyFullMs)} ms`,
        'does not grow',
      ],
      ['building every agent index (first requests)', (agents) => `${fmt(agents.buildSec)} s`, ''],
    ])
  }
  fs.mkdirSync(values.out, { recursive: true })
  fs.writeFileSync(path.join(values.out, 'latest.json'), JSON.stringify(results, null, 2))
} finally {
  for (const engine of engines) await engine.close()
  fs.rmSync(tmp, { recursive: true, force: true })
}
