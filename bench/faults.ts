/**
 * The fault suite (issue 9): the built service runs in its own process while 16 clients mix
 * searches, reads, appends and flushes; meanwhile a thread swaps a folder of the workspace
 * for a symlink to outside it, a hard link to an outside file sits in memory/, and the
 * service is killed with SIGKILL and restarted a few times (flushes cut off by a kill are
 * retried with their flushId, as an agent would). Then a steady phase without kills
 * measures RSS growth after warm-up.
 *
 * Prints requests, 5xx answers (must be 0), acknowledged writes lost or duplicated (must
 * be 0), answers carrying outside content (must be 0), outside files changed (must be 0)
 * and RSS growth in the steady phase (must stay under 10 %); returns whether all held.
 * Also prints the steady phase's flush latency (issue 19: p99 ≤ 100 ms with 16 clients).
 */
import fs from 'node:fs'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import { createRandom } from './corpus.js'
import { rssMb } from './rss.js'
import { median, percentile } from './stats.js'
import { startServer, type ServerProcess } from './server-process.js'

export type FaultOptions = {
  tmp: string
  /** Seconds of the phase with SIGKILL restarts, and of the steady phase after it. */
  killPhase: number
  steady: number
  kills: number
  clients: number
  /** Seconds of the steady phase before RSS is sampled. */
  warmUp: number
}

export async function runFaults(opts: FaultOptions): Promise<boolean> {
  const SECRET = 'OUTSIDE-SECRET-4417'
  const DAY = '2026-03-01'

  const tmp = fs.mkdtempSync(path.join(opts.tmp, 'faults-'))
  const workspace = path.join(tmp, 'workspace')
  const outside = path.join(tmp, 'outside')
  const env = {
    MNEMO_WORKSPACE: workspace,
    MNEMO_DATA_DIR: path.join(tmp, 'data'),
    MNEMO_INDEX_ON_START: 'true',
    MNEMO_SYNC_DEBOUNCE_MS: '200',
  }

  /** Files outside the workspace, reachable only through the swapped symlink and the hard link. */
  function setUp(): Record<string, string> {
    const outsideFiles = { 'note.md': `# Outside\n${SECRET}\n`, 'secret.md': `# Secret\n${SECRET} again\n` }
    fs.mkdirSync(outside, { recursive: true })
    for (const [name, text] of Object.entries(outsideFiles)) fs.writeFileSync(path.join(outside, name), text)
    fs.mkdirSync(path.join(workspace, 'memory', 'sub'), { recursive: true })
    fs.writeFileSync(path.join(workspace, 'MEMORY.md'), '# Facts\nThe lighthouse keeper is called Ingrid.\n')
    fs.writeFileSync(path.join(workspace, 'memory', 'sub', 'note.md'), '# Inside\nAn ordinary note.\n')
    fs.symlinkSync(outside, path.join(workspace, 'memory', 'sub.link'))
    fs.linkSync(path.join(outside, 'secret.md'), path.join(workspace, 'memory', 'hardlink.md'))
    return outsideFiles
  }

  /** A thread renaming memory/sub and the symlink in and out of place until stopped. */
  function startSwapper(): { stop(): Promise<number> } {
    const worker = new Worker(
      `const fs = require('node:fs'); const { workerData, parentPort } = require('node:worker_threads')
       const p = (n) => workerData + '/' + n; let stop = false; let swaps = 0
       parentPort.on('message', () => (stop = true))
       const step = (a, b) => { try { fs.renameSync(p(a), p(b)) } catch {} }
       const loop = () => { for (let i = 0; i < 50 && !stop; i++) { step('sub', 'sub.real'); step('sub.link', 'sub'); step('sub', 'sub.link'); step('sub.real', 'sub'); swaps++ }
         if (stop) parentPort.postMessage(swaps); else setTimeout(loop, 1) }
       loop()`,
      { eval: true, workerData: path.join(workspace, 'memory') },
    )
    return {
      stop: () =>
        new Promise((resolve) => {
          worker.once('message', (n: number) => void worker.terminate().then(() => resolve(n)))
          worker.postMessage('stop')
        }),
    }
  }

  type Tally = { requests: number; by5xx: Map<string, number>; unavailable: number; leaks: string[] }
  const tally: Tally = { requests: 0, by5xx: new Map(), unavailable: 0, leaks: [] }
  /** Lines acknowledged by appends, per file; notes acknowledged by flushes. */
  const appended = new Map<string, string[]>()
  const flushed = new Map<string, string>()
  /** Flushes cut off by a kill: retried with the same id once the service is back. */
  const unanswered: { flushId: string; note: string }[] = []
  /** Milliseconds of each answered flush in the steady phase (none are cut off by kills there). */
  const flushMs: number[] = []

  let server: ServerProcess
  async function call(method: string, route: string, body?: unknown, contentType = 'application/json') {
    tally.requests++
    try {
      const res = await fetch(`${server.baseUrl}${route}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': contentType },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
        signal: AbortSignal.timeout(10_000),
      })
      const text = await res.text()
      if (text.includes(SECRET)) tally.leaks.push(`${method} ${route}`)
      if (res.status >= 500) {
        const code = (JSON.parse(text) as { code?: string }).code ?? String(res.status)
        const key = `${method} /${route.split('/')[1]} ${code}`
        tally.by5xx.set(key, (tally.by5xx.get(key) ?? 0) + 1)
      }
      return { status: res.status, text }
    } catch {
      tally.unavailable++
      return null
    }
  }

  const QUERIES = ['lighthouse keeper', 'note from client', SECRET, 'ordinary note', 'flush note 3', 'Ingrid']

  async function client(phase: string, id: number, until: () => boolean): Promise<void> {
    const r = createRandom(id + 1)
    for (let n = 0; !until(); n++) {
      const op = r.int(10)
      if (op < 4) await call('POST', '/search', { query: QUERIES[r.int(QUERIES.length)], minScore: 0 })
      else if (op < 5) await call('GET', r.int(2) ? '/files/memory/sub/note.md' : '/files/memory/hardlink.md')
      else if (op < 7) {
        const file = `memory/client-${id}.md`
        const line = `- note from client ${id} number ${n} (${phase})`
        const res = await call('POST', `/files/${file}`, line, 'text/markdown')
        if (res?.status === 200) appended.set(file, [...(appended.get(file) ?? []), line])
      } else if (op < 9) {
        const flushId = `${phase}-c${id}:${n}`
        const note = `- flush note ${n} of client ${id} (${phase})`
        const started = performance.now()
        const res = await call('POST', '/flush', { entries: [note], date: DAY, flushId })
        if (res?.status === 200 && phase === 'steady') flushMs.push(performance.now() - started)
        if (res?.status === 200) flushed.set(flushId, note)
        else if (!res) unanswered.push({ flushId, note })
      } else {
        await call('POST', '/files/memory/sub/appended.md', `- client ${id} writes into sub`, 'text/markdown')
      }
    }
  }

  async function runClients(phase: string, seconds: number, during?: () => Promise<void>): Promise<void> {
    const end = Date.now() + seconds * 1000
    const clients = Array.from({ length: opts.clients }, (_, i) => client(phase, i, () => Date.now() > end))
    await Promise.all([...clients, during?.()])
  }

  const outsideFiles = setUp()
  const swapper = startSwapper()
  try {
    server = await startServer(env)
    // Kill phase: SIGKILL at random moments, restart, retry what a kill cut off.
    const kills = opts.kills
    const killPhase = opts.killPhase
    await runClients('kills', killPhase, async () => {
      for (let k = 0; k < kills; k++) {
        await new Promise((resolve) => setTimeout(resolve, (killPhase * 1000) / (kills + 1)))
        process.kill(server.pid as number, 'SIGKILL')
        await new Promise((resolve) => setTimeout(resolve, 200))
        server = await startServer(env)
      }
    })
    for (const { flushId, note } of unanswered) {
      const res = await call('POST', '/flush', { entries: [note], date: DAY, flushId })
      if (res?.status === 200) flushed.set(flushId, note)
    }
    // Steady phase: no kills. RSS is sampled every second after warm-up; a garbage-collected
    // heap moves in a sawtooth (±20 % within seconds on this load), so growth compares the
    // median of the first third of the samples with the median of the last third.
    const warmUp = opts.warmUp
    const samples: number[] = []
    let sampler: NodeJS.Timeout | undefined
    await runClients('steady', opts.steady, async () => {
      await new Promise((resolve) => setTimeout(resolve, warmUp * 1000))
      sampler = setInterval(() => samples.push(rssMb(server.pid)), 1000)
    })
    clearInterval(sampler)
    const third = Math.max(1, Math.floor(samples.length / 3))
    const rssWarm = median(samples.slice(0, third))
    const rssEnd = median(samples.slice(-third))
    const swaps = await swapper.stop()
    await server.stop()

    // Every acknowledged write on disk exactly once.
    let lost = 0
    let duplicated = 0
    const count = (text: string, line: string) => text.split('\n').filter((l) => l === line).length
    for (const [file, lines] of appended) {
      const text = fs.readFileSync(path.join(workspace, file), 'utf8')
      for (const line of lines) {
        const n = count(text, line)
        if (n === 0) lost++
        if (n > 1) duplicated++
      }
    }
    const day = fs.readFileSync(path.join(workspace, 'memory', `${DAY}.md`), 'utf8')
    for (const note of flushed.values()) {
      const n = count(day, note)
      if (n === 0) lost++
      if (n > 1) duplicated++
    }
    const outsideChanged = Object.entries(outsideFiles).filter(
      ([name, text]) => fs.readFileSync(path.join(outside, name), 'utf8') !== text,
    ).length
    const outsideAdded = fs.readdirSync(outside).length - Object.keys(outsideFiles).length
    const fivexx = [...tally.by5xx.values()].reduce((a, b) => a + b, 0)
    const growth = (rssEnd - rssWarm) / rssWarm
    const rows: [string, string, string][] = [
      ['requests (clients + retries)', String(tally.requests), ''],
      ['refused while the service was down (SIGKILL)', String(tally.unavailable), ''],
      ['5xx answers', `${fivexx}${fivexx > 0 ? ` ${JSON.stringify(Object.fromEntries(tally.by5xx))}` : ''}`, '0'],
      ['acknowledged appends / flushes', `${[...appended.values()].flat().length} / ${flushed.size}`, ''],
      ['acknowledged writes lost / duplicated', `${lost} / ${duplicated}`, '0 / 0'],
      ['answers carrying outside content', String(tally.leaks.length), '0'],
      ['outside files changed / created', `${outsideChanged} / ${outsideAdded}`, '0 / 0'],
      ['folder swaps during the run', String(swaps), ''],
      [
        'steady-phase `/flush` p50 / p99',
        `${percentile(flushMs, 50).toFixed(0)} / ${percentile(flushMs, 99).toFixed(0)} ms (${flushMs.length})`,
        'p99 ≤ 100 ms',
      ],
      [
        'RSS median, first → last third after warm-up',
        `${rssWarm.toFixed(0)} → ${rssEnd.toFixed(0)} MB (${(growth * 100).toFixed(1)} %)`,
        '< 10 %',
      ],
    ]
    process.stdout.write('\n| measure | value | must be |\n|---|---|---|\n')
    for (const [a, b, c] of rows) process.stdout.write(`| ${a} | ${b} | ${c} |\n`)
    const failed =
      fivexx > 0 ||
      lost + duplicated > 0 ||
      tally.leaks.length > 0 ||
      outsideChanged + outsideAdded > 0 ||
      growth >= 0.1
    return !failed
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true })
  }
}
