/**
 * What the search log costs a search (issue 33): the synthetic workspace indexed by two
 * services, one with MNEMO_SEARCH_LOG=on (the default) and one with it off, searched in
 * turns by one client each, keyword then hybrid (`hash` vectors). Target: p50 within 5 %.
 * Then the log's size: the entries the service with the log holds afterwards.
 */
import path from 'node:path'
import { makeQueries, writeCorpus } from './corpus.js'
import type { BenchEngine } from './engines.js'
import { createClient } from './http-client.js'
import { measureLatency } from './measure.js'
import { startServer, type ServerProcess } from './server-process.js'
import { median } from './stats.js'

export type SearchLogBenchOptions = {
  tmp: string
  engine: BenchEngine
  runs: number
  files: number
  notesPerFile: number
  latencyRequests: number
}

type Side = { name: 'off' | 'on'; server: ServerProcess; client: ReturnType<typeof createClient> }

export async function benchSearchLog(opts: SearchLogBenchOptions) {
  const workspace = path.join(opts.tmp, 'workspace')
  writeCorpus(workspace, opts.files, opts.notesPerFile)
  const sides: Side[] = []
  for (const name of ['off', 'on'] as const) {
    const dataDir = path.join(opts.tmp, `data-${name}`)
    const server = await startServer({
      MNEMO_WORKSPACE: workspace,
      ...opts.engine.env(dataDir),
      MNEMO_EMBED_PROVIDER: 'hash',
      MNEMO_SEARCH_LOG: name,
    })
    const client = createClient(server.baseUrl)
    const indexed = await client.request('POST', '/index?wait=true', {})
    if (indexed.status !== 200) throw new Error(`index failed: ${indexed.body}`)
    sides.push({ name, server, client })
  }
  const queries = makeQueries(500)
  const p50 = {
    keyword: { off: [] as number[], on: [] as number[] },
    hybrid: { off: [] as number[], on: [] as number[] },
  }
  let logged = 0
  try {
    for (const side of sides)
      for (const query of queries.slice(0, 100)) await side.client.request('POST', '/search', { query })
    for (let run = 0; run < opts.runs; run++) {
      for (const side of run % 2 === 0 ? sides : [...sides].reverse()) {
        for (const mode of ['keyword', 'hybrid'] as const) {
          const measured = await measureLatency(side.client, queries, {
            runs: 1,
            requests: opts.latencyRequests,
            fields: { mode },
          })
          p50[mode][side.name].push(...measured.p50)
        }
      }
    }
    const on = sides.find((s) => s.name === 'on') as Side
    const listed = await on.client.request('GET', '/searches?limit=1000', undefined)
    logged = (JSON.parse(listed.body) as { searches: unknown[] }).searches.length
  } finally {
    for (const side of sides) {
      side.client.close()
      await side.server.stop()
    }
    for (const name of ['off', 'on']) await opts.engine.drop(path.join(opts.tmp, `data-${name}`))
  }
  const ratio = (mode: 'keyword' | 'hybrid') => median(p50[mode].on) / median(p50[mode].off)
  return {
    keyword: { offMs: median(p50.keyword.off), onMs: median(p50.keyword.on), ratio: ratio('keyword') },
    hybrid: { offMs: median(p50.hybrid.off), onMs: median(p50.hybrid.on), ratio: ratio('hybrid') },
    listed: logged,
    runs: p50,
  }
}
