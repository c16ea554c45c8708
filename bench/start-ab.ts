/**
 * Cold start of several builds side by side (issue 35): each round starts every build in turn
 * (the order reversed every other round) on the same workspace (bench/corpus.ts, 200 × 50
 * notes: 10,001 chunks) with a new data folder, and times spawn → GET /ready 200, as
 * bench/start.ts does, so load on a shared machine falls on all of them alike. `--empty`:
 * an empty workspace instead (a new one each start), the start-up alone. The server's CPU
 * by then (all threads) is less sensitive to other load than the wall time.
 *
 *   npx tsx bench/start-ab.ts [--rounds 8] [--empty] label=/path/to/worktree ...
 *
 * Each path is a checkout with its build (dist/main.js). Prints each build's runs and medians.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { writeCorpus } from './corpus.js'
import { startServer } from './server-process.js'
import { cpuMs } from './process-cpu.js'
import { median } from './stats.js'

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string', default: '8' }, empty: { type: 'boolean', default: false } },
})
const builds = positionals.map((arg) => {
  const [label, root] = arg.split('=') as [string, string]
  return { label, main: path.resolve(root, 'dist', 'main.js'), ms: [] as number[], cpuMs: [] as number[] }
})
if (builds.length === 0) throw new Error('name the builds: label=/path/to/checkout ...')
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-start-ab-'))
const corpus = path.join(tmp, 'workspace')
if (!values.empty) writeCorpus(corpus, 200, 50)
try {
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const build of round % 2 ? [...builds].reverse() : builds) {
      const dataDir = path.join(tmp, `data-${build.label}-${round}`)
      // The service writes an example MEMORY.md into an empty workspace.
      const workspace = values.empty ? path.join(tmp, `empty-${build.label}-${round}`) : corpus
      fs.mkdirSync(workspace, { recursive: true })
      const started = performance.now()
      const server = await startServer(
        { MNEMO_WORKSPACE: workspace, MNEMO_DATA_DIR: dataDir, MNEMO_INDEX_ON_START: 'true' },
        { pollMs: 10, main: build.main },
      )
      try {
        while ((await fetch(`${server.baseUrl}/ready`)).status !== 200) await new Promise((r) => setTimeout(r, 10))
        build.ms.push(Math.round(performance.now() - started))
        build.cpuMs.push(cpuMs(server.pid))
      } finally {
        await server.stop()
      }
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  }
  for (const b of builds) {
    process.stdout.write(
      `${b.label}: median ${median(b.ms)} ms (runs ${b.ms.join(' ')}), CPU ${median(b.cpuMs)} ms (${b.cpuMs.join(' ')})\n`,
    )
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true })
}
