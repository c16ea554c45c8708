/**
 * Retrieval quality on the dev sets in ../shared/eval (or --dir): each workspace is indexed
 * by the real service (container + app, queries through POST /search via inject), results
 * are written as JSONL for score.py, and score.py's summary is printed.
 *
 *   npm run eval -- cmrc|locomo|scifact|all [--dir ../shared/eval] [--out eval-results]
 *                   [--max-results 10] [--min-score 0] [--mode keyword] [--expand] [--env KEY=VALUE ...]
 *                   [--settle-ms 0]
 *
 * `--settle-ms 10000` waits that long after indexing each workspace before asking, so the
 * questions meet the index its background upkeep finished (rare lists included).
 *
 * `--expand` sends `expand: true` (query expansion: the MNEMO_EXPAND_* chat model's variants,
 * or without one the heuristic's).
 *
 * With `--env MNEMO_DATABASE_URL=postgres://…` the indexes live in PostgreSQL: each workspace
 * in a schema of its own (dropped afterwards), as on SQLite in a data dir of its own.
 *
 * `npm run eval -- abstain` asks at the service's default request settings (no maxResults,
 * minScore or mode sent): each set's questions of its own workspaces (share whose evidence
 * is returned) and of another set's workspaces (share answered at all, which should be none:
 * a memory service must be able to say "I don't remember").
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config/load-config.js'
import { createContainer } from '../src/wiring/container.js'
import { dropSchema } from './drop-schema.js'
import { probeEmbeddingDims } from '../src/providers/probe-dims.js'
import { createLogger } from '../src/shared/logger.js'

type Query = { qid: string; question: string; conv?: string }
type Hit = { path: string; startLine: number; endLine: number; score: number }

const SETS = ['cmrc', 'locomo', 'scifact'] as const
type EvalSet = (typeof SETS)[number]

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    dir: { type: 'string', default: path.resolve(import.meta.dirname, '../../shared/eval') },
    out: { type: 'string', default: 'eval-results' },
    'max-results': { type: 'string', default: '10' },
    'min-score': { type: 'string', default: '0' },
    mode: { type: 'string', default: 'hybrid' },
    expand: { type: 'boolean', default: false },
    env: { type: 'string', multiple: true, default: [] },
    'settle-ms': { type: 'string', default: '0' },
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

/** A fresh PostgreSQL schema per workspace (named after its data dir) unless --env names one. */
function schemaFor(dataDir: string): string | undefined {
  if (!extraEnv.MNEMO_DATABASE_URL || extraEnv.MNEMO_DATABASE_SCHEMA) return undefined
  return `eval_${path
    .basename(dataDir)
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase()}`
}

/** Indexes one workspace and answers its queries through the HTTP API. */
async function runWorkspace(workspace: string, queries: Query[], atDefaults = false): Promise<Map<string, Hit[]>> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-eval-'))
  const schema = schemaFor(dataDir)
  const loaded = loadConfig(
    {
      MNEMO_WORKSPACE: workspace,
      MNEMO_DATA_DIR: dataDir,
      MNEMO_LOG_LEVEL: 'warn',
      MNEMO_INDEX_ON_START: 'false',
      ...extraEnv,
      ...(schema && { MNEMO_DATABASE_SCHEMA: schema }),
    },
    process.cwd(),
  )
  const logger = createLogger(loaded.log)
  const config = await probeEmbeddingDims(loaded, { log: logger })
  // The service would start in keyword mode; an evaluation of it would measure the wrong thing.
  if (config.embedding.probeError !== undefined) {
    throw new Error(`the embedding server did not answer: ${config.embedding.probeError}`)
  }
  const container = await createContainer(config, logger)
  const app = await buildApp({ config, logger, container })
  const out = new Map<string, Hit[]>()
  try {
    const started = performance.now()
    const indexed = await app.inject({ method: 'POST', url: '/index?wait=true', payload: {} })
    if (indexed.statusCode !== 200) throw new Error(`index failed: ${indexed.body}`)
    const indexMs = performance.now() - started
    // The index's upkeep (FTS5 merge, impact and rare lists) runs in the background after the
    // sync; --settle-ms asks the questions once it has had that long.
    await new Promise((resolve) => setTimeout(resolve, Number(values['settle-ms'])))
    const searchStarted = performance.now()
    for (const q of queries) {
      const res = await app.inject({
        method: 'POST',
        url: '/search',
        payload: atDefaults
          ? { query: q.question }
          : {
              query: q.question,
              maxResults: Number(values['max-results']),
              minScore: Number(values['min-score']),
              mode: values.mode,
              ...(values.expand && { expand: true }),
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
    if (schema && extraEnv.MNEMO_DATABASE_URL) await dropSchema(extraEnv.MNEMO_DATABASE_URL, schema)
  }
  return out
}

/** A set's queries grouped by the workspace that holds their evidence. */
function setWorkspaces(set: EvalSet): { queriesFile: string; queries: Query[]; byWorkspace: Map<string, Query[]> } {
  const setDir = path.join(values.dir, set)
  const queriesFile = path.join(setDir, 'queries.jsonl')
  const queries = readQueries(queriesFile)
  const byWorkspace = new Map<string, Query[]>()
  for (const q of queries) {
    const ws = q.conv ? path.join(setDir, q.conv) : setDir
    byWorkspace.set(ws, [...(byWorkspace.get(ws) ?? []), q])
  }
  return { queriesFile, queries, byWorkspace }
}

/** Answers a set's queries in their own workspaces and writes them where score.py reads them. */
async function answerSet(set: EvalSet, atDefaults: boolean): Promise<{ queriesFile: string; resultsFile: string }> {
  const { queriesFile, queries, byWorkspace } = setWorkspaces(set)
  const results = new Map<string, Hit[]>()
  for (const [ws, qs] of byWorkspace) {
    for (const [qid, hits] of await runWorkspace(ws, qs, atDefaults)) results.set(qid, hits)
  }
  fs.mkdirSync(values.out, { recursive: true })
  const resultsFile = path.join(values.out, `${set}${atDefaults ? '-defaults' : ''}.jsonl`)
  fs.writeFileSync(
    resultsFile,
    queries.map((q) => JSON.stringify({ qid: q.qid, results: results.get(q.qid) ?? [] })).join('\n') + '\n',
  )
  return { queriesFile, resultsFile }
}

function score(queriesFile: string, resultsFile: string, json: boolean): string {
  const scorer = path.join(values.dir, 'score.py')
  return execFileSync('python3', [scorer, queriesFile, resultsFile, ...(json ? ['--json'] : [])], { encoding: 'utf8' })
}

async function runSet(set: EvalSet): Promise<void> {
  const { queriesFile, resultsFile } = await answerSet(set, false)
  process.stdout.write(`## ${set}\n${score(queriesFile, resultsFile, false)}\n`)
}

/**
 * Off-topic pairs: questions of one set asked of another set's workspaces (biomedical claims
 * and Chinese encyclopedia questions of chat logs, chat questions of abstracts).
 */
const OFF_TOPIC: [EvalSet, EvalSet][] = [
  ['scifact', 'locomo'],
  ['cmrc', 'locomo'],
  ['locomo', 'scifact'],
]

async function runAbstain(): Promise<void> {
  const pct = (x: number) => `${(100 * x).toFixed(1)} %`
  const lines = ['| questions | of workspace | queries | answered | evidence returned |', '|---|---|---|---|---|']
  for (const set of SETS) {
    const { queriesFile, resultsFile } = await answerSet(set, true)
    const all = (JSON.parse(score(queriesFile, resultsFile, true)) as Record<string, Record<string, number>>).ALL!
    const n = all.n as number
    lines.push(
      `| ${set} | ${set} | ${n} | ${pct(1 - (all.zero_results as number) / n)} | ${pct(all['Hit@10'] as number)} |`,
    )
  }
  for (const [asked, of] of OFF_TOPIC) {
    const queries = setWorkspaces(asked).queries
    let answered = 0
    let total = 0
    for (const ws of setWorkspaces(of).byWorkspace.keys()) {
      for (const hits of (await runWorkspace(ws, queries, true)).values()) {
        total++
        if (hits.length > 0) answered++
      }
    }
    lines.push(`| ${asked} | ${of} | ${total} | ${pct(answered / total)} | – |`)
  }
  process.stdout.write(`## abstention at the default request settings\n${lines.join('\n')}\n`)
}

const wanted = positionals[0] ?? 'all'
if (wanted === 'abstain') {
  await runAbstain()
} else {
  const sets = wanted === 'all' ? [...SETS] : SETS.filter((s) => s === wanted)
  if (sets.length === 0) {
    process.stderr.write(`unknown set "${wanted}"; use one of ${SETS.join(', ')}, all or abstain\n`)
    process.exit(2)
  }
  for (const set of sets) await runSet(set)
}
