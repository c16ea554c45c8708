/**
 * Long queries (issue 35): SciFact claims of 15 to 25 words against the SciFact workspace of
 * ../shared/eval (about 6,400 chunks), searched by keyword with one sequential keep-alive
 * client, against a bare fastify route on the same machine answering a fixed JSON body (the
 * floor of an HTTP round trip). Also the service's own timings (timingsMs) for where the time
 * goes.
 *
 *   npx tsx bench/long-queries.ts [--runs 3] [--dir ../shared/eval] [--requests 600] [--mode keyword|hybrid]
 *                                 [--mmr] [--engine sqlite|postgres|pglite] [--against other/dist/main.js]
 *
 * `--against` starts another build beside this one, on its own copy of the workspace, and
 * sends each claim to both in turn, so the two p50s share the machine's load: how to compare
 * builds on a machine whose speed drifts. (The bare route is no steady floor either: it
 * answers faster while the service beside it runs searches on its main thread than on its
 * read threads, 0.15–0.2 against 0.3 ms.)
 * `--mode hybrid` searches by keyword and `hash` vectors (no model needed): its results' texts
 * are read after ranking, not with the keyword hits. `--mmr` asks every search for MMR order.
 * `--engine postgres` runs under scripts/with-postgres, in a schema of its own (bench/engines.ts).
 *
 * Each build's `/metrics` also tells how much of a request's time inside the server is its
 * search: the mean request duration of `/search` against the mean of the searches' own total,
 * over the measured runs (the rest is the request pipeline around the search, from routing
 * to the response's `finish`).
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
import { scifactClaims } from './scifact-claims.js'
import { startServer, type ServerProcess } from './server-process.js'
import { median, percentile } from './stats.js'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    dir: { type: 'string', default: path.resolve(import.meta.dirname, '../../shared/eval') },
    requests: { type: 'string', default: '600' },
    mode: { type: 'string', default: 'keyword' },
    mmr: { type: 'boolean', default: false },
    engine: { type: 'string', default: 'sqlite' },
    against: { type: 'string' },
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
const claims = scifactClaims(set)

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-long-queries-'))
/** This build, and the one given with --against: each its own workspace copy and data. */
const builds = [{ label: 'this build' }, ...(values.against ? [{ label: values.against, main: values.against }] : [])]
const servers: ServerProcess[] = []
for (const [i, build] of builds.entries()) {
  const workspace = path.join(tmp, `workspace-${i}`)
  fs.cpSync(path.join(set, 'memory'), path.join(workspace, 'memory'), { recursive: true })
  const env = {
    MNEMO_WORKSPACE: workspace,
    ...engine.env(path.join(tmp, `data-${i}`)),
    // Latency of one client is measured: on a loaded machine, shedding would fail the run with 503.
    MNEMO_SHED_EVENT_LOOP_DELAY_MS: '0',
    ...(mode === 'hybrid' && { MNEMO_EMBED_PROVIDER: 'hash' }),
  }
  servers.push(await startServer(env, build.main ? { main: path.resolve(build.main) } : {}))
}
const bare = Fastify()
bare.post('/search', async () => ({ results: [], mode: 'keyword' }))
const bareUrl = await bare.listen({ host: '127.0.0.1', port: 0 })
/** One build's samples over the runs: per-run p50 and p99, and the service's own timings. */
type Measured = { p50: number[]; p99: number[]; stages: Record<string, number[]> }

/** Sums and counts, in s, of `/search` request durations (200s) and of the searches' own totals. */
type Durations = { requestS: number; requests: number; searchS: number; searches: number }

async function durations(client: ReturnType<typeof createClient>): Promise<Durations> {
  const lines = (await client.request('GET', '/metrics')).body.split('\n')
  const value = (prefix: string, ...labels: string[]) =>
    Number(
      lines
        .find((l) => l.startsWith(prefix) && labels.every((x) => l.includes(x)))
        ?.split(' ')
        .pop() ?? NaN,
    )
  const request = ['route="/search"', 'status_code="200"']
  return {
    requestS: value('mnemo_http_request_duration_seconds_sum', ...request),
    requests: value('mnemo_http_request_duration_seconds_count', ...request),
    searchS: value('mnemo_search_stage_duration_seconds_sum', 'stage="total"'),
    searches: value('mnemo_search_stage_duration_seconds_count', 'stage="total"'),
  }
}

/** Mean request and search time between two reads of the metrics, in ms. */
function meanMs(before: Durations, after: Durations): { request: number; search: number } {
  return {
    request: (1000 * (after.requestS - before.requestS)) / (after.requests - before.requests),
    search: (1000 * (after.searchS - before.searchS)) / (after.searches - before.searches),
  }
}

try {
  const clients = servers.map((server) => createClient(server.baseUrl))
  let chunks = 0
  for (const client of clients) {
    const indexed = await client.request('POST', '/index?wait=true', {})
    if (indexed.status !== 200) throw new Error(`index failed: ${indexed.body}`)
    chunks = (JSON.parse(indexed.body) as { chunks: number }).chunks
  }
  const floor = createClient(bareUrl)
  for (const q of claims) for (const client of clients) await client.request('POST', '/search', body(q))
  const measured: Measured[] = builds.map(() => ({ p50: [], p99: [], stages: {} }))
  const floorP50: number[] = []
  const before = await Promise.all(clients.map((client) => durations(client)))
  for (let run = 0; run < runs; run++) {
    const samples: number[][] = builds.map(() => [])
    const timings: Record<string, number[]>[] = builds.map(() => ({}))
    const floorSamples: number[] = []
    for (let i = 0; i < requests; i++) {
      const query = claims[i % claims.length] as string
      for (const [b, client] of clients.entries()) {
        const res = await client.request('POST', '/search', body(query))
        if (res.status !== 200) throw new Error(`search failed: ${res.body}`)
        samples[b]?.push(res.ms)
        const took = (JSON.parse(res.body) as { timingsMs: Record<string, number> }).timingsMs
        for (const [k, v] of Object.entries(took)) ((timings[b] as Record<string, number[]>)[k] ??= []).push(v)
      }
      floorSamples.push((await floor.request('POST', '/search', { query })).ms)
    }
    measured.forEach((m, b) => {
      m.p50.push(percentile(samples[b] as number[], 50))
      m.p99.push(percentile(samples[b] as number[], 99))
      for (const [k, v] of Object.entries(timings[b] as Record<string, number[]>))
        (m.stages[k] ??= []).push(percentile(v, 50))
    })
    floorP50.push(percentile(floorSamples, 50))
  }
  const inServer = await Promise.all(
    clients.map(async (client, b) => meanMs(before[b] as Durations, await durations(client))),
  )
  const ms = (n: number) => `${n.toFixed(2)} ms`
  const runsOf = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(', ')
  process.stdout.write(
    `${claims.length} claims, ${chunks} chunks, ${runs} runs of ${requests}; bare fastify p50 ${ms(median(floorP50))}\n` +
      measured
        .map(
          (m, b) =>
            `${builds[b]?.label}: ${engine.name} ${mode}${values.mmr ? ' mmr' : ''} /search p50 ${ms(median(m.p50))} ` +
            `(runs ${runsOf(m.p50)}; ${(median(m.p50) / median(floorP50)).toFixed(1)}× the bare route), p99 ${ms(median(m.p99))}\n` +
            `  service timings p50: ${Object.entries(m.stages)
              .map(([k, v]) => `${k} ${ms(median(v))}`)
              .join(', ')}\n` +
            `  in the server, means over the runs: the request ${ms(inServer[b]?.request ?? NaN)}, ` +
            `its search ${ms(inServer[b]?.search ?? NaN)}\n`,
        )
        .join(''),
  )
} finally {
  await bare.close()
  for (const server of servers) await server.stop()
  for (const i of builds.keys()) await engine.drop(path.join(tmp, `data-${i}`))
  await engine.close()
  fs.rmSync(tmp, { recursive: true, force: true })
}
