/**
 * Keyword search benchmark (issue 2): cold index time of the synthetic workspace, /search
 * latency with one client (p50/p99) and throughput with 16 concurrent clients (autocannon),
 * all over HTTP against the built service in its own process.
 */
import path from 'node:path'
import { makeCommonQueries, makeQueries, writeCorpus } from './corpus.js'
import type { BenchEngine } from './engines.js'
import { createClient } from './http-client.js'
import { rssMb } from './rss.js'
import { waitForImpactLists } from './impact-wait.js'
import { probeAfterIndex, type AfterIndex } from './after-index.js'
import { startServer } from './server-process.js'
import { measureLatency, measureThroughput } from './measure.js'
import { median } from './stats.js'

export type KeywordBenchOptions = {
  tmp: string
  engine: BenchEngine
  /** Passes of each search measurement, on the last index. */
  runs: number
  /** Cold indexes (the last is searched): fewer than `runs` where one takes tens of minutes. */
  indexRuns: number
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

  const index = { wallMs: [] as number[], serverMs: [] as number[], chunks: 0, listsMs: 0 }
  let afterIndex: AfterIndex | null = null
  let dataDir = ''
  for (let run = 0; run < opts.indexRuns; run++) {
    dataDir = path.join(opts.tmp, `data-${run}`)
    const server = await startServer({ MNEMO_WORKSPACE: workspace, ...opts.engine.env(dataDir) })
    const client = createClient(server.baseUrl)
    const res = await client.indexAll()
    const status = JSON.parse(res.body) as IndexStatus
    index.wallMs.push(res.ms)
    index.serverMs.push(status.lastSync.durationMs)
    index.chunks = status.chunks
    const indexedAt = Date.now()
    if (run === opts.indexRuns - 1) afterIndex = await probeAfterIndex(client)
    await waitForImpactLists(opts.engine, dataDir, status.chunks)
    index.listsMs = Date.now() - indexedAt
    client.close()
    await server.stop()
    if (run < opts.indexRuns - 1) await opts.engine.drop(dataDir)
  }

  if (!afterIndex) throw new Error('no cold index ran (--runs or --index-runs 0)')

  const server = await startServer({ MNEMO_WORKSPACE: workspace, ...opts.engine.env(dataDir) })
  const client = createClient(server.baseUrl)
  for (const query of queries.slice(0, 200)) await client.request('POST', '/search', { query })
  /** Sequential searches; counts the queries of the first pass that found nothing. */
  async function latency(list: string[]) {
    let empty = 0
    const { p50, p99 } = await measureLatency(client, list, {
      runs: opts.runs,
      requests: opts.latencyRequests,
      check: (body, run, i) => {
        if (run === 0 && i < list.length && (JSON.parse(body) as { results: unknown[] }).results.length === 0) empty++
      },
    })
    return { p50, p99, empty }
  }
  const typical = await latency(queries)
  const common = await latency(makeCommonQueries(500))
  client.close()

  const { rps, refused } = await measureThroughput(server.baseUrl, queries, {
    runs: opts.runs,
    durationSec: opts.durationSec,
  })
  const rss = rssMb(server.pid)
  await server.stop()
  const diskBytes = await opts.engine.diskBytes(dataDir)
  await opts.engine.drop(dataDir)

  return {
    chunks: index.chunks,
    coldIndexMs: median(index.wallMs),
    coldIndexServerMs: median(index.serverMs),
    /** Time the background impact lists took after the last cold index, not in coldIndexMs. */
    impactListsMs: index.listsMs,
    chunksPerSec: index.chunks / (median(index.serverMs) / 1000),
    /** Right after the last cold index, while its upkeep runs (after-index.ts). */
    afterIndex,
    searchP50Ms: median(typical.p50),
    searchP99Ms: median(typical.p99),
    commonWordP50Ms: median(common.p50),
    commonWordP99Ms: median(common.p99),
    searchesPerSec: median(rps),
    searchesRefused: refused,
    queriesWithoutResults: typical.empty,
    queries: Math.min(queries.length, opts.latencyRequests),
    rssMb: rss,
    diskBytesPerChunk: Math.round(diskBytes / index.chunks),
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
