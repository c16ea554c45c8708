/**
 * Keyword /search latency of several builds side by side (issue 19): each build's
 * dist/main.js serves its own index of the same workspace (bench/corpus.ts, 200 × 50 notes),
 * and rounds of the benchmark's typical queries alternate between the builds, so load on a
 * shared machine falls on all of them alike. One keep-alive client, sequential requests.
 *
 *   npx tsx bench/keyword-ab.ts --rounds 7 label=/path/to/worktree ...
 *
 * Prints each build's median over rounds of the round's p50 and p99 (ms) and of the server's
 * CPU time per search (all its threads and its main thread, from /proc: less sensitive to load than latency).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { makeQueries, writeCorpus } from './corpus.js'
import { createClient } from './http-client.js'
import { startServer } from './server-process.js'
import { cpuMs, cpuMsAt } from './process-cpu.js'
import { median, percentile } from './stats.js'

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: 'string', default: '7' },
    dir: { type: 'string', default: path.join(os.tmpdir(), 'mnemo-keyword-ab') },
  },
})
const workspace = path.join(values.dir, 'workspace')
if (!fs.existsSync(workspace)) writeCorpus(workspace, 200, 50)
const queries = makeQueries(500)

async function start(label: string, root: string) {
  const server = await startServer(
    {
      MNEMO_WATCH: 'false',
      MNEMO_WORKSPACE: workspace,
      MNEMO_DATA_DIR: path.join(values.dir, `data-${label}`),
      ...(process.env.AB_NODE_OPTIONS ? { NODE_OPTIONS: process.env.AB_NODE_OPTIONS } : {}),
    },
    { main: path.join(root, 'dist/main.js') },
  )
  const client = createClient(server.baseUrl)
  await client.indexAll()
  for (const query of queries.slice(0, 200)) await client.request('POST', '/search', { query })
  const stop = async () => {
    client.close()
    await server.stop()
  }
  return {
    label,
    client,
    stop,
    pid: server.pid as number,
    p50: [] as number[],
    p99: [] as number[],
    cpu: [] as number[],
    mainCpu: [] as number[],
  }
}

/** CPU ms of the server's main thread and of all its threads. */
const cpuOf = (pid: number) => ({ main: cpuMsAt(`/proc/${pid}/task/${pid}/stat`), all: cpuMs(pid) })

const builds = []
for (const arg of positionals) {
  const [label, root] = arg.split('=') as [string, string]
  builds.push(await start(label, root))
}
for (let round = 0; round < Number(values.rounds); round++) {
  const order = round % 2 === 0 ? builds : [...builds].reverse()
  for (const b of order) {
    const ms: number[] = []
    const cpu0 = cpuOf(b.pid)
    for (const query of queries) {
      const res = await b.client.request('POST', '/search', { query })
      if (res.status !== 200) throw new Error(`${b.label}: ${res.status} ${res.body}`)
      ms.push(res.ms)
    }
    const cpu1 = cpuOf(b.pid)
    b.cpu.push(((cpu1.all - cpu0.all) * 1000) / queries.length)
    b.mainCpu.push(((cpu1.main - cpu0.main) * 1000) / queries.length)
    b.p50.push(percentile(ms, 50))
    b.p99.push(percentile(ms, 99))
  }
}
for (const b of builds) {
  await b.stop()
  const f = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' ')
  process.stdout.write(
    `${b.label}: p50 ${median(b.p50).toFixed(2)} ms (rounds ${f(b.p50)}), p99 ${median(b.p99).toFixed(2)} ms, server CPU ${median(b.cpu).toFixed(0)} µs per search (main thread ${median(b.mainCpu).toFixed(0)}) (rounds ${b.cpu.map((c) => c.toFixed(0)).join(' ')})\n`,
  )
}
