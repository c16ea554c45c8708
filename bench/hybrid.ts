/**
 * Hybrid search benchmark (issue 3): with the offline `hash` embedder, at each corpus size:
 * cold index throughput, a re-index of the unchanged workspace (which must embed nothing),
 * hybrid /search latency with one client (p50/p99), throughput with 16 clients, and the
 * server's resident memory.
 */
import path from 'node:path'
import autocannon from 'autocannon'
import { makeQueries, writeCorpus } from './corpus.js'
import { createClient } from './http-client.js'
import { rssMb } from './rss.js'
import { startServer } from './server-process.js'
import { median, percentile } from './stats.js'

export type HybridBenchOptions = {
  tmp: string
  runs: number
  durationSec: number
  chunks: number
  latencyRequests: number
}

type Status = { chunks: number; lastSync: { durationMs: number; embedded: number; indexed: number } }

const NOTES_PER_FILE = 50

export async function benchHybrid(opts: HybridBenchOptions) {
  const workspace = path.join(opts.tmp, `workspace-${opts.chunks}`)
  writeCorpus(workspace, Math.ceil(opts.chunks / NOTES_PER_FILE), NOTES_PER_FILE, 7)
  const dataDir = path.join(opts.tmp, `data-${opts.chunks}`)
  const server = await startServer({
    MNEMO_WORKSPACE: workspace,
    MNEMO_DATA_DIR: dataDir,
    MNEMO_EMBED_PROVIDER: 'hash',
  })
  const client = createClient(server.baseUrl)
  const queries = makeQueries(500, 3)
  try {
    const cold = await client.request('POST', '/index?wait=true', {})
    if (cold.status !== 200) throw new Error(`index failed: ${cold.body}`)
    const coldStatus = JSON.parse(cold.body) as Status
    const again = JSON.parse((await client.request('POST', '/index?wait=true', {})).body) as Status

    for (const query of queries.slice(0, 100)) await client.request('POST', '/search', { query })
    const p50: number[] = []
    const p99: number[] = []
    for (let run = 0; run < opts.runs; run++) {
      const samples: number[] = []
      for (let i = 0; i < opts.latencyRequests; i++) {
        const res = await client.request('POST', '/search', { query: queries[i % queries.length] })
        if (res.status !== 200 || (JSON.parse(res.body) as { mode: string }).mode !== 'hybrid')
          throw new Error(`not a hybrid answer: ${res.body}`)
        samples.push(res.ms)
      }
      p50.push(percentile(samples, 50))
      p99.push(percentile(samples, 99))
    }
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
    return {
      chunks: coldStatus.chunks,
      coldIndexMs: coldStatus.lastSync.durationMs,
      chunksPerSec: coldStatus.chunks / (coldStatus.lastSync.durationMs / 1000),
      reindexEmbedded: again.lastSync.embedded,
      reindexIndexed: again.lastSync.indexed,
      p50Ms: median(p50),
      p99Ms: median(p99),
      searchesPerSec: median(rps),
      rssMb: rssMb(server.pid),
      samples: { p50, p99, rps },
    }
  } finally {
    client.close()
    await server.stop()
  }
}
