/**
 * Keyword search benchmark (issue 2): cold index time of the synthetic workspace, /search
 * latency with one client (p50/p99) and throughput with 16 concurrent clients (autocannon),
 * all over HTTP against the built service in its own process.
 */
import fs from 'node:fs'
import path from 'node:path'
import autocannon from 'autocannon'
import { makeCommonQueries, makeQueries, writeCorpus } from './corpus.js'
import { createClient } from './http-client.js'
import { rssMb } from './rss.js'
import { startServer } from './server-process.js'
import { median, percentile } from './stats.js'

export type KeywordBenchOptions = {
  tmp: string
  runs: number
  durationSec: number
  files: number
  notesPerFile: number
  latencyRequests: number
}

type IndexStatus = { chunks: number; lastSync: { durationMs: number } }

export async function benchKeyword(opts: KeywordBenchOptions) {
  const workspace = path.join(opts.tmp, 'workspace')
  writeCorpus(workspace, opts.files, opts.notesPerFile)
  const queries = makeQueries(500)

  const index = { wallMs: [] as number[], serverMs: [] as number[], chunks: 0 }
  let dataDir = ''
  for (let run = 0; run < opts.runs; run++) {
    dataDir = path.join(opts.tmp, `data-${run}`)
    const server = await startServer({ MNEMO_WORKSPACE: workspace, MNEMO_DATA_DIR: dataDir })
    const client = createClient(server.baseUrl)
    const res = await client.request('POST', '/index?wait=true', {})
    if (res.status !== 200) throw new Error(`index failed: ${res.body}`)
    const status = JSON.parse(res.body) as IndexStatus
    index.wallMs.push(res.ms)
    index.serverMs.push(status.lastSync.durationMs)
    index.chunks = status.chunks
    client.close()
    await server.stop()
    if (run < opts.runs - 1) fs.rmSync(dataDir, { recursive: true, force: true })
  }

  const server = await startServer({ MNEMO_WORKSPACE: workspace, MNEMO_DATA_DIR: dataDir })
  const client = createClient(server.baseUrl)
  for (const query of queries.slice(0, 200)) await client.request('POST', '/search', { query })
  /** Sequential searches with one client; p50/p99 of each run. */
  async function latency(list: string[]) {
    const p50: number[] = []
    const p99: number[] = []
    let empty = 0
    for (let run = 0; run < opts.runs; run++) {
      const samples: number[] = []
      for (let i = 0; i < opts.latencyRequests; i++) {
        const res = await client.request('POST', '/search', { query: list[i % list.length] })
        if (res.status !== 200) throw new Error(`search failed: ${res.body}`)
        if (run === 0 && i < list.length && (JSON.parse(res.body) as { results: unknown[] }).results.length === 0)
          empty++
        samples.push(res.ms)
      }
      p50.push(percentile(samples, 50))
      p99.push(percentile(samples, 99))
    }
    return { p50, p99, empty }
  }
  const typical = await latency(queries)
  const common = await latency(makeCommonQueries(500))
  client.close()

  const rps: number[] = []
  for (let run = 0; run < opts.runs; run++) {
    const result = await autocannon({
      url: server.baseUrl,
      connections: 16,
      duration: opts.durationSec,
      requests: queries.map((query) => ({
        method: 'POST' as const,
        path: '/search',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      })),
    })
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`throughput run had ${result.non2xx} non-2xx and ${result.errors} errors`)
    rps.push(result.requests.average)
  }
  const rss = rssMb(server.pid)
  await server.stop()

  return {
    chunks: index.chunks,
    coldIndexMs: median(index.wallMs),
    coldIndexServerMs: median(index.serverMs),
    chunksPerSec: index.chunks / (median(index.serverMs) / 1000),
    searchP50Ms: median(typical.p50),
    searchP99Ms: median(typical.p99),
    commonWordP50Ms: median(common.p50),
    commonWordP99Ms: median(common.p99),
    searchesPerSec: median(rps),
    queriesWithoutResults: typical.empty,
    queries: Math.min(queries.length, opts.latencyRequests),
    rssMb: rss,
    samples: {
      indexWallMs: index.wallMs,
      p50: typical.p50,
      p99: typical.p99,
      commonP50: common.p50,
      commonP99: common.p99,
      rps,
    },
  }
}
