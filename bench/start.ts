/**
 * Start-up benchmark (issue 19): from spawning the built service to GET /ready answering
 * 200, with an empty workspace and with the synthetic workspace (200 files × 50 notes:
 * about 10,000 chunks) that its first sync indexes into a new data folder, then one search
 * that must find something. With `qmd` (the path of a QMD executable, run with this Node),
 * the same files indexed by `qmd collection add` into a fresh QMD index are timed in the
 * same rounds, interleaved, as the peer of the second figure.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { writeCorpus } from './corpus.js'
import { startServer } from './server-process.js'
import { cpuMs } from './process-cpu.js'
import { median } from './stats.js'

export type StartBenchOptions = {
  tmp: string
  runs: number
  files: number
  notesPerFile: number
  /** A QMD executable (e.g. /tmp/qmd/node_modules/.bin/qmd), or none. */
  qmd?: string | undefined
}

/** How often /ready is asked, in ms: short enough to time an empty start to about 10 ms. */
const POLL_MS = 10

/** From spawn until /ready answers 200: wall and CPU ms; the server is stopped after `then`. */
async function spawnToReady(
  env: Record<string, string>,
  then: (baseUrl: string) => Promise<void>,
): Promise<{ ms: number; cpuMs: number }> {
  const started = performance.now()
  const server = await startServer({ MNEMO_INDEX_ON_START: 'true', ...env }, { pollMs: POLL_MS })
  try {
    for (;;) {
      if ((await fetch(`${server.baseUrl}/ready`)).status === 200) break
      await new Promise((r) => setTimeout(r, POLL_MS))
    }
    const ready = { ms: performance.now() - started, cpuMs: cpuMs(server.pid) }
    await then(server.baseUrl)
    return ready
  } finally {
    await server.stop()
  }
}

/** A search that must find the corpus' words: the index is usable, not merely ready. */
async function expectResults(baseUrl: string): Promise<void> {
  const res = await fetch(`${baseUrl}/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'deploy cache latency' }),
  })
  const body = (await res.json()) as { results?: unknown[] }
  if (res.status !== 200 || !body.results?.length) throw new Error(`search after start found nothing (${res.status})`)
}

/** Milliseconds `qmd collection add` takes to index `workspace` into an index of its own. */
async function qmdIndex(qmd: string, workspace: string, home: string): Promise<number> {
  fs.rmSync(home, { recursive: true, force: true })
  fs.mkdirSync(home, { recursive: true })
  const started = performance.now()
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(qmd, ['collection', 'add', workspace, '--name', 'bench'], {
      env: {
        // QMD runs on the Node running the benchmark.
        PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}`,
        HOME: home,
        XDG_CACHE_HOME: path.join(home, 'cache'),
        XDG_CONFIG_HOME: path.join(home, 'config'),
        QMD_CONFIG_DIR: path.join(home, 'config'),
        NO_COLOR: '1',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.on('error', reject)
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`qmd exited with ${code}: ${out}`))))
  })
  const ms = performance.now() - started
  if (!/Indexed: [1-9]\d* new/.test(output)) throw new Error(`qmd indexed nothing: ${output}`)
  return ms
}

export async function benchStart(opts: StartBenchOptions) {
  const workspace = path.join(opts.tmp, 'start-workspace')
  writeCorpus(workspace, opts.files, opts.notesPerFile)
  const samples = {
    emptyReadyMs: [] as number[],
    emptyReadyCpuMs: [] as number[],
    coldSearchableMs: [] as number[],
    coldSearchableCpuMs: [] as number[],
    qmdIndexMs: [] as number[],
  }
  let chunks = 0
  // Interleaved rounds: the machine's load drifts alike for every figure.
  for (let run = 0; run < opts.runs; run++) {
    const dataDir = (name: string) => path.join(opts.tmp, `start-data-${name}-${run}`)
    // A new empty folder each round (the service writes an example MEMORY.md into it).
    const empty = path.join(opts.tmp, `start-empty-${run}`)
    fs.mkdirSync(empty, { recursive: true })
    const emptyStart = await spawnToReady(
      { MNEMO_WORKSPACE: empty, MNEMO_DATA_DIR: dataDir('empty') },
      async () => undefined,
    )
    samples.emptyReadyMs.push(emptyStart.ms)
    samples.emptyReadyCpuMs.push(emptyStart.cpuMs)
    const coldStart = await spawnToReady(
      { MNEMO_WORKSPACE: workspace, MNEMO_DATA_DIR: dataDir('cold') },
      async (baseUrl) => {
        await expectResults(baseUrl)
        chunks = ((await (await fetch(`${baseUrl}/index`)).json()) as { chunks: number }).chunks
      },
    )
    samples.coldSearchableMs.push(coldStart.ms)
    samples.coldSearchableCpuMs.push(coldStart.cpuMs)
    if (opts.qmd) samples.qmdIndexMs.push(await qmdIndex(opts.qmd, workspace, path.join(opts.tmp, 'qmd-home')))
    for (const name of ['empty', 'cold']) fs.rmSync(dataDir(name), { recursive: true, force: true })
  }
  return {
    chunks,
    emptyReadyMs: median(samples.emptyReadyMs),
    emptyReadyCpuMs: median(samples.emptyReadyCpuMs),
    coldSearchableMs: median(samples.coldSearchableMs),
    coldSearchableCpuMs: median(samples.coldSearchableCpuMs),
    qmdIndexMs: opts.qmd ? median(samples.qmdIndexMs) : NaN,
    samples,
  }
}
