/**
 * npm run bench: builds the service, runs the benchmarks against dist/main.js in a child
 * process, prints a table (medians of --runs runs) and writes bench-results/<name>.json.
 *
 *   npm run bench -- [--runs 3] [--duration 10] [--files 200] [--notes 50]
 */
import { execSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { benchKeyword } from './keyword.js'
import { fmt } from './stats.js'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    duration: { type: 'string', default: '10' },
    files: { type: 'string', default: '200' },
    notes: { type: 'string', default: '50' },
    'latency-requests': { type: 'string', default: '2000' },
    out: { type: 'string', default: 'bench-results' },
  },
})

execSync('npm run build', { stdio: 'inherit' })
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-bench-'))
try {
  const keyword = await benchKeyword({
    tmp,
    runs: Number(values.runs),
    durationSec: Number(values.duration),
    files: Number(values.files),
    notesPerFile: Number(values.notes),
    latencyRequests: Number(values['latency-requests']),
  })
  const rows: [string, string, string][] = [
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
  ]
  process.stdout.write(`\n| measure | median of ${values.runs} runs | target |\n|---|---|---|\n`)
  for (const [name, value, target] of rows) process.stdout.write(`| ${name} | ${value} | ${target} |\n`)
  fs.mkdirSync(values.out, { recursive: true })
  fs.writeFileSync(
    path.join(values.out, 'keyword.json'),
    JSON.stringify({ at: new Date().toISOString(), cpus: os.cpus().length, keyword }, null, 2),
  )
} finally {
  fs.rmSync(tmp, { recursive: true, force: true })
}
