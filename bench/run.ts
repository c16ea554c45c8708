/**
 * npm run bench: builds the service, runs the benchmarks against dist/main.js in a child
 * process, prints a table (medians of --runs runs) and writes bench-results/<name>.json.
 *
 *   npm run bench -- [--runs 3] [--duration 10] [--files 200] [--notes 50]
 *                    [--only keyword,hybrid,live,agents] [--hybrid-sizes 10000,100000]
 *                    [--agents 200] [--agent-files 10]
 */
import { execSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { benchAgents } from './agents.js'
import { benchHybrid } from './hybrid.js'
import { benchKeyword } from './keyword.js'
import { benchLive } from './live.js'
import { fmt } from './stats.js'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    duration: { type: 'string', default: '10' },
    files: { type: 'string', default: '200' },
    notes: { type: 'string', default: '50' },
    'latency-requests': { type: 'string', default: '2000' },
    'hybrid-sizes': { type: 'string', default: '10000,100000' },
    only: { type: 'string', default: 'keyword,hybrid,live' },
    edits: { type: 'string', default: '40' },
    'debounced-edits': { type: 'string', default: '12' },
    flushes: { type: 'string', default: '200' },
    out: { type: 'string', default: 'bench-results' },
    agents: { type: 'string', default: '200' },
    'agent-files': { type: 'string', default: '10' },
  },
})

execSync('npm run build', { stdio: 'inherit' })
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-bench-'))
const only = new Set(values.only.split(','))
const runs = Number(values.runs)
const table = (title: string, rows: [string, string, string][]) => {
  process.stdout.write(`\n### ${title}\n\n| measure | median of ${runs} runs | target |\n|---|---|---|\n`)
  for (const [name, value, target] of rows) process.stdout.write(`| ${name} | ${value} | ${target} |\n`)
}
const results: Record<string, unknown> = { at: new Date().toISOString(), cpus: os.cpus().length }
try {
  if (only.has('keyword')) {
    const keyword = await benchKeyword({
      tmp,
      runs,
      durationSec: Number(values.duration),
      files: Number(values.files),
      notesPerFile: Number(values.notes),
      latencyRequests: Number(values['latency-requests']),
    })
    results.keyword = keyword
    table('Keyword search (no embedding provider)', [
      ['chunks indexed', String(keyword.chunks), ''],
      ['cold index (server-side)', `${fmt(keyword.coldIndexServerMs)} ms`, '≤ 5000 ms'],
      ['cold index throughput', `${fmt(keyword.chunksPerSec)} chunks/s`, ''],
      ['keyword /search p50, 1 client', `${fmt(keyword.searchP50Ms)} ms`, '≤ 3 ms'],
      ['keyword /search p99, 1 client', `${fmt(keyword.searchP99Ms)} ms`, '≤ 10 ms'],
      [
        'common-word queries p50 / p99 (worst case)',
        `${fmt(keyword.commonWordP50Ms)} / ${fmt(keyword.commonWordP99Ms)} ms`,
        '',
      ],
      ['keyword /search throughput, 16 clients', `${fmt(keyword.searchesPerSec)} req/s`, '≥ 1500 req/s'],
      ['queries without results', `${keyword.queriesWithoutResults} / ${keyword.queries}`, ''],
      ['server RSS after the runs', `${fmt(keyword.rssMb)} MB`, ''],
    ])
  }
  if (only.has('hybrid')) {
    for (const size of values['hybrid-sizes'].split(',').map(Number)) {
      const large = size >= 50_000
      const hybrid = await benchHybrid({
        tmp,
        runs,
        durationSec: Number(values.duration),
        chunks: size,
        latencyRequests: large ? 300 : 1000,
      })
      results[`hybrid${size}`] = hybrid
      table(`Hybrid search, hash embeddings, ${hybrid.chunks} chunks`, [
        [
          'cold index throughput',
          `${fmt(hybrid.chunksPerSec)} chunks/s (${fmt(hybrid.coldIndexMs / 1000)} s)`,
          '≥ 2000 chunks/s',
        ],
        [
          're-index of the unchanged workspace: files indexed / texts embedded',
          `${hybrid.reindexIndexed} / ${hybrid.reindexEmbedded}`,
          '0 embedding calls',
        ],
        ['hybrid /search p50, 1 client', `${fmt(hybrid.p50Ms)} ms`, large ? '≤ 40 ms' : '≤ 8 ms'],
        ['hybrid /search p99, 1 client', `${fmt(hybrid.p99Ms)} ms`, ''],
        ['hybrid /search throughput, 16 clients', `${fmt(hybrid.searchesPerSec)} req/s`, ''],
        ['server RSS after the runs', `${fmt(hybrid.rssMb)} MB`, large ? '≤ 400 MB' : ''],
      ])
    }
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
    table(`Live sync, ${live.chunks} chunks (no embedding provider)`, [
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
  if (only.has('agents')) {
    const agents = await benchAgents({
      tmp,
      runs,
      agents: Number(values.agents),
      filesPerAgent: Number(values['agent-files']),
      notesPerFile: Number(values.notes),
      latencyRequests: Number(values['latency-requests']),
    })
    results.agents = agents
    table(`Many agents: ${agents.agents} agents × ${agents.chunksPerAgent} chunks (keyword)`, [
      [
        'search p50 / p99, warm agent',
        `${fmt(agents.warmAgentP50Ms)} / ${fmt(agents.warmAgentP99Ms)} ms`,
        '≤ 1.2× single agent',
      ],
      [
        'search p50 / p99, single agent (main, same size, same process)',
        `${fmt(agents.singleAgentP50Ms)} / ${fmt(agents.singleAgentP99Ms)} ms`,
        '',
      ],
      [
        'warm agent / single agent, p50 and p99',
        `${fmt(agents.warmAgentP50Ms / agents.singleAgentP50Ms)}× / ${fmt(agents.warmAgentP99Ms / agents.singleAgentP99Ms)}×`,
        '≤ 1.2×',
      ],
      [
        'first search on a closed agent p50 / p95 / p99 (open + answer)',
        `${fmt(agents.firstSearchP50Ms)} / ${fmt(agents.firstSearchP95Ms)} / ${fmt(agents.firstSearchP99Ms)} ms`,
        'p95 ≤ 50 ms',
      ],
      ['server RSS after touching every agent', `${fmt(agents.rssMb)} MB`, '≤ 500 MB'],
      [
        'spawn → /ready, no agents / every agent indexed',
        `${fmt(agents.readyEmptyMs)} / ${fmt(agents.readyFullMs)} ms`,
        'does not grow',
      ],
      ['building every agent index (first requests)', `${fmt(agents.buildSec)} s`, ''],
    ])
  }
  fs.mkdirSync(values.out, { recursive: true })
  fs.writeFileSync(path.join(values.out, 'latest.json'), JSON.stringify(results, null, 2))
} finally {
  fs.rmSync(tmp, { recursive: true, force: true })
}
