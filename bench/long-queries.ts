/**
 * Long queries (issue 35): SciFact claims of 15 to 25 words against the SciFact workspace of
 * ../shared/eval (about 6,400 chunks), searched by keyword with one sequential keep-alive
 * client, against a bare fastify route on the same machine answering a fixed JSON body (the
 * floor of an HTTP round trip). Also the service's own timings (timingsMs) for where the time
 * goes.
 *
 *   npx tsx bench/long-queries.ts [--runs 3] [--dir ../shared/eval] [--requests 600] [--mode keyword|hybrid]
 *                                 [--mmr] [--engine sqlite|postgres|pglite]
 *
 * `--mode hybrid` searches by keyword and `hash` vectors (no model needed): its results' texts
 * are read after ranking, not with the keyword hits. `--mmr` asks every search for MMR order.
 * `--engine postgres` runs under scripts/with-postgres, in a schema of its own (bench/engines.ts).
 *
 * Needs the service built (npm run build). Prints medians over runs.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import Fastify from 'fastify'
import { ENGINE_NAMES, openEngine, type EngineName } from './engines.js'
import { createClient } from './http-client.js'
import { startServer } from './server-process.js'
import { median, percentile } from './stats.js'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    dir: { type: 'string', default: path.resolve(import.meta.dirname, '../../shared/eval') },
    requests: { type: 'string', default: '600' },
    mode: { type: 'string', default: 'keyword' },
    mmr: { type: 'boolean', default: false },
    engine: { type: 'string', default: 'sqlite' },
  },
})
const mode = values.mode
if (mode !== 'keyword' && mode !== 'hybrid') throw new Error(`--mode keyword or hybrid, not ${mode}`)
if (!(ENGINE_NAMES as readonly string[]).includes(values.engine)) throw new Error(`unknown engine ${values.engine}`)
const engine = await openEngine(values.engine as EngineName)
const body = (query: string) => ({ query, mode, ...(values.mmr && { mmr: true }) })
const runs = Number(values.runs)
const requests = Number(values.requests)
const set = path.join(values.dir, 'scifact')
const claims = fs
  .readFileSync(path.join(set, 'queries.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => (JSON.parse(l) as { question: string }).question)
  .filter((q) => {
    const words = q.split(/\s+/).length
    return words >= 15 && words <= 25
  })
  .slice(0, 300)

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-long-queries-'))
fs.cpSync(path.join(set, 'memory'), path.join(tmp, 'workspace', 'memory'), { recursive: true })
const dataDir = path.join(tmp, 'data')
const server = await startServer({
  MNEMO_WORKSPACE: path.join(tmp, 'workspace'),
  ...engine.env(dataDir),
  // Latency of one client is measured: on a loaded machine, shedding would fail the run with 503.
  MNEMO_SHED_EVENT_LOOP_DELAY_MS: '0',
  ...(mode === 'hybrid' && { MNEMO_EMBED_PROVIDER: 'hash' }),
})
const bare = Fastify()
bare.post('/search', async () => ({ results: [], mode: 'keyword' }))
const bareUrl = await bare.listen({ host: '127.0.0.1', port: 0 })
try {
  const client = createClient(server.baseUrl)
  const indexed = await client.request('POST', '/index?wait=true', {})
  if (indexed.status !== 200) throw new Error(`index failed: ${indexed.body}`)
  const chunks = (JSON.parse(indexed.body) as { chunks: number }).chunks
  const floor = createClient(bareUrl)
  for (const q of claims) await client.request('POST', '/search', body(q))
  const p50: number[] = []
  const p99: number[] = []
  const floorP50: number[] = []
  const stages: Record<string, number[]> = {}
  for (let run = 0; run < runs; run++) {
    const samples: number[] = []
    const floorSamples: number[] = []
    const timings: Record<string, number[]> = {}
    for (let i = 0; i < requests; i++) {
      const query = claims[i % claims.length] as string
      const res = await client.request('POST', '/search', body(query))
      if (res.status !== 200) throw new Error(`search failed: ${res.body}`)
      samples.push(res.ms)
      for (const [k, v] of Object.entries((JSON.parse(res.body) as { timingsMs: Record<string, number> }).timingsMs))
        (timings[k] ??= []).push(v)
      floorSamples.push((await floor.request('POST', '/search', { query })).ms)
    }
    p50.push(percentile(samples, 50))
    p99.push(percentile(samples, 99))
    floorP50.push(percentile(floorSamples, 50))
    for (const [k, v] of Object.entries(timings)) (stages[k] ??= []).push(percentile(v, 50))
  }
  const ms = (n: number) => `${n.toFixed(2)} ms`
  process.stdout.write(
    `${claims.length} claims, ${chunks} chunks, ${runs} runs of ${requests}\n` +
      `${engine.name} ${mode}${values.mmr ? ' mmr' : ''} /search p50 ${ms(median(p50))}, p99 ${ms(median(p99))}; bare fastify p50 ${ms(median(floorP50))} ` +
      `(${(median(p50) / median(floorP50)).toFixed(1)}×)\n` +
      `service timings p50: ${Object.entries(stages)
        .map(([k, v]) => `${k} ${ms(median(v))}`)
        .join(', ')}\n`,
  )
} finally {
  await bare.close()
  await server.stop()
  await engine.drop(dataDir)
  await engine.close()
  fs.rmSync(tmp, { recursive: true, force: true })
}
