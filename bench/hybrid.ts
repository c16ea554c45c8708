/**
 * Hybrid search benchmark (issue 3): with the offline `hash` embedder, at each corpus size:
 * cold index throughput, a re-index of the unchanged workspace (which must embed nothing),
 * hybrid /search latency with one client (p50/p99), throughput with 16 clients, and the
 * server's resident memory.
 */
import path from 'node:path'
import { makeQueries, writeCorpus } from './corpus.js'
import type { BenchEngine } from './engines.js'
import { createClient } from './http-client.js'
import { waitForImpactLists } from './impact-wait.js'
import { rssMb } from './rss.js'
import { startServer } from './server-process.js'
import { measureLatency, measureThroughput } from './measure.js'
import { median } from './stats.js'

export type HybridBenchOptions = {
  tmp: string
  engine: BenchEngine
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
    ...opts.engine.env(dataDir),
    MNEMO_EMBED_PROVIDER: 'hash',
  })
  const client = createClient(server.baseUrl)
  const queries = makeQueries(500, 3)
  try {
    const coldStatus = JSON.parse((await client.indexAll()).body) as Status
    const again = JSON.parse((await client.indexAll()).body) as Status
    // As the keyword benchmark: latency of the index as it serves once its background lists are built.
    const listsMs = await waitForImpactLists(opts.engine, dataDir, coldStatus.chunks)

    for (const query of queries.slice(0, 100)) await client.request('POST', '/search', { query })
    const { p50, p99 } = await measureLatency(client, queries, {
      runs: opts.runs,
      requests: opts.latencyRequests,
      check: (body) => {
        if ((JSON.parse(body) as { mode: string }).mode !== 'hybrid') throw new Error(`not a hybrid answer: ${body}`)
      },
    })
    const { rps, refused } = await measureThroughput(server.baseUrl, queries, {
      runs: opts.runs,
      durationSec: opts.durationSec,
    })
    return {
      chunks: coldStatus.chunks,
      coldIndexMs: coldStatus.lastSync.durationMs,
      chunksPerSec: coldStatus.chunks / (coldStatus.lastSync.durationMs / 1000),
      /** Time the background impact lists took after the cold index, not in coldIndexMs. */
      impactListsMs: listsMs,
      reindexEmbedded: again.lastSync.embedded,
      reindexIndexed: again.lastSync.indexed,
      p50Ms: median(p50),
      p99Ms: median(p99),
      searchesPerSec: median(rps),
      searchesRefused: refused,
      rssMb: rssMb(server.pid),
      samples: { p50, p99, rps },
    }
  } finally {
    client.close()
    await server.stop()
    await opts.engine.drop(dataDir)
  }
}
