/**
 * Many-agents benchmark (issue 8): `agents` agents of about 500 chunks each behind one
 * service. Measures, against the built service in its own process:
 * - search p50/p99 on a warm agent, beside the same searches on a single agent of the same
 *   size (main) in the same process: the cost of agent selection and a shared worker pool;
 * - the first search on a closed agent (open its index, answer; its catch-up sync and
 *   watcher start meanwhile), over every agent after a restart;
 * - RSS after every agent was touched (at most MNEMO_MAX_OPEN_AGENTS stay open);
 * - time from spawn to /ready with every agent's index on disk, against an empty agents
 *   folder: start-up must not depend on the number of agents.
 */
import fs from 'node:fs'
import path from 'node:path'
import { makeQueries, writeCorpus } from './corpus.js'
import type { BenchEngine } from './engines.js'
import { createClient } from './http-client.js'
import { rssMb } from './rss.js'
import { startServer, type ServerProcess } from './server-process.js'
import { median, percentile } from './stats.js'

export type AgentsBenchOptions = {
  tmp: string
  engine: BenchEngine
  runs: number
  agents: number
  /** Day files per agent, of `notesPerFile` notes (≈ one chunk each). */
  filesPerAgent: number
  notesPerFile: number
  latencyRequests: number
}

const agentId = (i: number) => `agent-${String(i).padStart(3, '0')}`

/** Milliseconds from spawn until /ready answers 200. */
async function timeToReady(env: Record<string, string>): Promise<{ ms: number; server: ServerProcess }> {
  const started = performance.now()
  const server = await startServer(env)
  for (;;) {
    if ((await fetch(`${server.baseUrl}/ready`)).status === 200) break
    await new Promise((r) => setTimeout(r, 5))
  }
  return { ms: performance.now() - started, server }
}

export async function benchAgents(opts: AgentsBenchOptions) {
  const workspace = path.join(opts.tmp, 'agents-main')
  const agentsDir = path.join(opts.tmp, 'agents')
  const emptyAgentsDir = path.join(opts.tmp, 'agents-none')
  const dataDir = path.join(opts.tmp, 'agents-data')
  writeCorpus(workspace, opts.filesPerAgent, opts.notesPerFile, 42)
  for (let i = 0; i < opts.agents; i++) {
    writeCorpus(path.join(agentsDir, agentId(i)), opts.filesPerAgent, opts.notesPerFile, 1000 + i)
  }
  fs.mkdirSync(emptyAgentsDir, { recursive: true })
  const queries = makeQueries(500)
  const env = { MNEMO_WORKSPACE: workspace, ...opts.engine.env(dataDir), MNEMO_INDEX_ON_START: 'true' }

  // Build every agent's index once (a request to a new agent waits for its first sync).
  const building = await startServer({ ...env, MNEMO_AGENTS_DIR: agentsDir })
  const builder = createClient(building.baseUrl)
  const buildStarted = performance.now()
  let chunksPerAgent = 0
  for (let i = 0; i < opts.agents; i++) {
    const res = await builder.request('GET', '/index', undefined, { 'x-mnemo-agent': agentId(i) })
    if (res.status !== 200) throw new Error(`indexing ${agentId(i)} failed: ${res.body}`)
    chunksPerAgent = (JSON.parse(res.body) as { chunks: number }).chunks
  }
  const buildMs = performance.now() - buildStarted
  builder.close()
  await building.stop()
  // Every agent's index and main's, the same size.
  const diskBytesPerChunk = (await opts.engine.diskBytes(dataDir)) / ((opts.agents + 1) * chunksPerAgent)

  const ready = { empty: [] as number[], full: [] as number[] }
  const firstSearch: number[] = []
  const warm = { agentP50: [] as number[], agentP99: [] as number[], mainP50: [] as number[], mainP99: [] as number[] }
  let rss = NaN
  for (let run = 0; run < opts.runs; run++) {
    const none = await timeToReady({ ...env, MNEMO_AGENTS_DIR: emptyAgentsDir })
    ready.empty.push(none.ms)
    await none.server.stop()

    const { ms, server } = await timeToReady({ ...env, MNEMO_AGENTS_DIR: agentsDir })
    ready.full.push(ms)
    const client = createClient(server.baseUrl)
    // Every agent is closed after the restart: its first search opens it.
    for (let i = 0; i < opts.agents; i++) {
      const res = await client.request(
        'POST',
        '/search',
        { query: queries[i % queries.length] },
        {
          'x-mnemo-agent': agentId(i),
        },
      )
      if (res.status !== 200) throw new Error(`search of ${agentId(i)} failed: ${res.body}`)
      firstSearch.push(res.ms)
    }
    rss = rssMb(server.pid)

    // Warm: the same searches on one open agent and on main, alternating in blocks.
    const warmAgent = agentId(opts.agents - 1)
    const samples = { agent: [] as number[], main: [] as number[] }
    for (let i = 0; i < opts.latencyRequests; i++) {
      const query = queries[i % queries.length]
      for (const [who, headers] of [
        ['main', {}],
        ['agent', { 'x-mnemo-agent': warmAgent }],
      ] as const) {
        const res = await client.request('POST', '/search', { query }, headers)
        if (res.status !== 200) throw new Error(`search failed: ${res.body}`)
        samples[who].push(res.ms)
      }
    }
    warm.agentP50.push(percentile(samples.agent, 50))
    warm.agentP99.push(percentile(samples.agent, 99))
    warm.mainP50.push(percentile(samples.main, 50))
    warm.mainP99.push(percentile(samples.main, 99))
    client.close()
    await server.stop()
  }

  return {
    agents: opts.agents,
    chunksPerAgent,
    buildSec: buildMs / 1000,
    warmAgentP50Ms: median(warm.agentP50),
    warmAgentP99Ms: median(warm.agentP99),
    singleAgentP50Ms: median(warm.mainP50),
    singleAgentP99Ms: median(warm.mainP99),
    firstSearchP50Ms: percentile(firstSearch, 50),
    firstSearchP95Ms: percentile(firstSearch, 95),
    firstSearchP99Ms: percentile(firstSearch, 99),
    rssMb: rss,
    diskBytesPerChunk,
    readyEmptyMs: median(ready.empty),
    readyFullMs: median(ready.full),
    samples: { warm, ready, firstSearchRuns: opts.runs },
  }
}
