/**
 * Write-to-searchable through the other replica (issue 17). On an engine several processes
 * share (PostgreSQL), two service processes on one schema and one workspace, each with its
 * own data dir and no folder watcher, as two replicas behind a load balancer: a new file is
 * PUT through replica A, then replica B is searched for a word only that file holds, back
 * to back, until it finds it. On SQLite, which one process owns, A and B are the same
 * process: the single-replica baseline.
 */
import fs from 'node:fs'
import path from 'node:path'
import { writeCorpus } from './corpus.js'
import type { BenchEngine } from './engines.js'
import { createClient } from './http-client.js'
import { startServer } from './server-process.js'
import { median, percentile } from './stats.js'

export type ReplicasBenchOptions = {
  tmp: string
  engine: BenchEngine
  runs: number
  /** Files written per run. */
  writes: number
  /** Size of the workspace already indexed: day files of `notesPerFile` chunks. */
  files: number
  notesPerFile: number
}

/** Gives up on a write B has not found after this long, in ms. */
const FIND_TIMEOUT_MS = 10_000

/** A word of letters only, distinct for every (run, i), that the corpus never holds. */
const wordOf = (run: number, i: number) =>
  `zq${(run * 10_000 + i)
    .toString(26)
    .split('')
    .map((d) => String.fromCharCode(97 + parseInt(d, 26)))
    .join('')}vx`

export async function benchReplicas(opts: ReplicasBenchOptions) {
  const workspace = path.join(opts.tmp, 'workspace-replicas')
  writeCorpus(workspace, opts.files, opts.notesPerFile)
  const dataDir = path.join(opts.tmp, 'data-replica-a')
  const env = { MNEMO_WORKSPACE: workspace, MNEMO_WATCH: 'false', ...opts.engine.env(dataDir) }
  const a = await startServer(env)
  const clientA = createClient(a.baseUrl)
  const indexed = await clientA.request('POST', '/index?wait=true', {})
  if (indexed.status !== 200) throw new Error(`index failed: ${indexed.body}`)
  const dataDirB = path.join(opts.tmp, 'data-replica-b')
  const b = opts.engine.shared ? await startServer({ ...env, MNEMO_DATA_DIR: dataDirB }) : a
  const clientB = createClient(b.baseUrl)
  const found = { p50: [] as number[], p95: [] as number[], max: [] as number[] }
  const put = { p50: [] as number[], p95: [] as number[] }
  let writes = 0
  /** Writes whose first search after the PUT answered already found them. */
  let firstSearch = 0
  try {
    for (let run = 0; run < opts.runs; run++) {
      const total: number[] = []
      const putMs: number[] = []
      for (let i = 0; i < opts.writes; i++) {
        const word = wordOf(run, i)
        const file = `memory/x-${run}-${i}.md`
        const started = performance.now()
        const res = await clientA.request('PUT', `/files/${file}`, {
          content: `# Note ${run}.${i}\n\nThe ${word} keeps the ledger of release ${i}.\n`,
        })
        if (res.status !== 201) throw new Error(`PUT ${file}: ${res.status} ${res.body}`)
        putMs.push(res.ms)
        for (let search = 1; ; search++) {
          const hit = await clientB.request('POST', '/search', { query: word, maxResults: 5 })
          if (hit.status !== 200) throw new Error(`search failed: ${hit.body}`)
          const results = (JSON.parse(hit.body) as { results: { path: string }[] }).results
          if (results.some((r) => r.path === file)) {
            if (search === 1) firstSearch++
            break
          }
          if (performance.now() - started > FIND_TIMEOUT_MS) throw new Error(`${file} not found through B`)
        }
        total.push(performance.now() - started)
        writes++
      }
      found.p50.push(percentile(total, 50))
      found.p95.push(percentile(total, 95))
      found.max.push(Math.max(...total))
      put.p50.push(percentile(putMs, 50))
      put.p95.push(percentile(putMs, 95))
    }
  } finally {
    clientA.close()
    clientB.close()
    await b.stop()
    await a.stop()
    await opts.engine.drop(dataDir)
    fs.rmSync(dataDirB, { recursive: true, force: true })
  }
  return {
    replicas: opts.engine.shared ? 2 : 1,
    writes,
    foundP50Ms: median(found.p50),
    foundP95Ms: median(found.p95),
    foundMaxMs: Math.max(...found.max),
    putP50Ms: median(put.p50),
    putP95Ms: median(put.p95),
    foundByFirstSearch: firstSearch,
    samples: { found, put },
  }
}
