/**
 * Retrieval quality on the dev sets in ../shared/eval (or --dir): each workspace is indexed
 * by the real service (container + app, queries through POST /search via inject), results
 * are written as JSONL for score.py, and score.py's summary is printed.
 *
 *   npm run eval -- cmrc|locomo|scifact|all [--dir ../shared/eval] [--out eval-results]
 *                   [--max-results 10] [--min-score 0] [--mode keyword] [--env KEY=VALUE ...]
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config/load-config.js'
import { createContainer } from '../src/container.js'
import { createLogger } from '../src/shared/logger.js'

type Query = { qid: string; question: string; conv?: string }
type Hit = { path: string; startLine: number; endLine: number; score: number }

const SETS = ['cmrc', 'locomo', 'scifact'] as const

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    dir: { type: 'string', default: path.resolve(import.meta.dirname, '../../shared/eval') },
    out: { type: 'string', default: 'eval-results' },
    'max-results': { type: 'string', default: '10' },
    'min-score': { type: 'string', default: '0' },
    mode: { type: 'string', default: 'hybrid' },
    env: { type: 'string', multiple: true, default: [] },
  },
})

const extraEnv = Object.fromEntries(values.env.map((kv) => kv.split(/=(.*)/s).slice(0, 2) as [string, string]))

function readQueries(file: string): Query[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Query)
}

/** Indexes one workspace and answers its queries through the HTTP API. */
async function runWorkspace(workspace: string, queries: Query[]): Promise<Map<string, Hit[]>> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-eval-'))
  const config = loadConfig(
    {
      MNEMO_WORKSPACE: workspace,
      MNEMO_DATA_DIR: dataDir,
      MNEMO_LOG_LEVEL: 'warn',
      MNEMO_INDEX_ON_START: 'false',
      ...extraEnv,
    },
    process.cwd(),
  )
  const logger = createLogger(config.log)
  const container = createContainer(config, logger)
  const app = await buildApp({ config, logger, container })
  const out = new Map<string, Hit[]>()
  try {
    const started = performance.now()
    const indexed = await app.inject({ method: 'POST', url: '/index?wait=true', payload: {} })
    if (indexed.statusCode !== 200) throw new Error(`index failed: ${indexed.body}`)
    const indexMs = performance.now() - started
    const searchStarted = performance.now()
    for (const q of queries) {
      const res = await app.inject({
        method: 'POST',
        url: '/search',
        payload: {
          query: q.question,
          maxResults: Number(values['max-results']),
          minScore: Number(values['min-score']),
          mode: values.mode,
        },
      })
      if (res.statusCode !== 200) throw new Error(`search failed for ${q.qid}: ${res.body}`)
      const body = res.json<{ results: Hit[] }>()
      out.set(
        q.qid,
        body.results.map(({ path: p, startLine, endLine, score }) => ({ path: p, startLine, endLine, score })),
      )
    }
    const perQuery = (performance.now() - searchStarted) / Math.max(1, queries.length)
    const status = (await app.inject({ method: 'GET', url: '/index' })).json<{ chunks: number }>()
    process.stderr.write(
      `${path.basename(workspace)}: ${status.chunks} chunks indexed in ${indexMs.toFixed(0)} ms, ` +
        `${queries.length} queries at ${perQuery.toFixed(2)} ms each\n`,
    )
  } finally {
    await app.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
  return out
}

async function runSet(set: (typeof SETS)[number]): Promise<void> {
  const setDir = path.join(values.dir, set)
  const queriesFile = path.join(setDir, 'queries.jsonl')
  const queries = readQueries(queriesFile)
  const byWorkspace = new Map<string, Query[]>()
  for (const q of queries) {
    const ws = q.conv ? path.join(setDir, q.conv) : setDir
    byWorkspace.set(ws, [...(byWorkspace.get(ws) ?? []), q])
  }
  const results = new Map<string, Hit[]>()
  for (const [ws, qs] of byWorkspace) for (const [qid, hits] of await runWorkspace(ws, qs)) results.set(qid, hits)

  fs.mkdirSync(values.out, { recursive: true })
  const resultsFile = path.join(values.out, `${set}.jsonl`)
  fs.writeFileSync(
    resultsFile,
    queries.map((q) => JSON.stringify({ qid: q.qid, results: results.get(q.qid) ?? [] })).join('\n') + '\n',
  )
  const scorer = path.join(values.dir, 'score.py')
  const summary = execFileSync('python3', [scorer, queriesFile, resultsFile], { encoding: 'utf8' })
  process.stdout.write(`## ${set}\n${summary}\n`)
}

const wanted = positionals[0] ?? 'all'
const sets = wanted === 'all' ? [...SETS] : SETS.filter((s) => s === wanted)
if (sets.length === 0) {
  process.stderr.write(`unknown set "${wanted}"; use one of ${SETS.join(', ')} or all\n`)
  process.exit(2)
}
for (const set of sets) await runSet(set)
