/**
 * What an operator and a well-behaved agent see while another agent attacks: a thread of
 * its own (so the attacker's work in this process cannot delay it) probes GET /health every
 * 20 ms, as a liveness probe would, and lets the agent `alice` search her own memory one
 * request after another and append a note to memory/alice-log.md every 250 ms; the main
 * thread samples the server's RSS every 200 ms.
 */
import { Worker } from 'node:worker_threads'
import { rssMb } from '../rss.js'

export type MonitorReport = {
  /** /health answer times, ms; a probe that failed or took over 10 s counts as 10,000. */
  health: number[]
  healthFailed: number
  /** alice's search answer times, ms, and her answers (searches, appends) with status ≥ 500. */
  search: number[]
  search5xx: number
  /** Lines alice's appends added that the service acknowledged (200). */
  appended: string[]
  /** Server RSS samples, MB. */
  rss: number[]
}

/** Probes in a worker: plain JS, since the bench runs under tsx and workers get no loader. */
const PROBES = `
const { parentPort, workerData } = require('node:worker_threads')
const { baseUrl, token, queries } = workerData
const out = { health: [], healthFailed: 0, search: [], search5xx: 0, appended: [] }
let stop = false
parentPort.on('message', () => { stop = true })
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
async function health() {
  while (!stop) {
    const t = performance.now()
    try {
      const res = await fetch(baseUrl + '/health', { signal: AbortSignal.timeout(10000) })
      await res.text()
      if (!res.ok) out.healthFailed++
      out.health.push(performance.now() - t)
    } catch { out.healthFailed++; out.health.push(10000) }
    await sleep(20)
  }
}
async function search() {
  for (let i = 0; !stop; i++) {
    const t = performance.now()
    try {
      const res = await fetch(baseUrl + '/search', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer ' + token },
        body: JSON.stringify({ query: queries[i % queries.length] }),
        signal: AbortSignal.timeout(30000),
      })
      await res.text()
      if (res.status >= 500) out.search5xx++
      out.search.push(performance.now() - t)
    } catch { out.search5xx++; out.search.push(30000) }
    await sleep(5)
  }
}
async function append() {
  for (let i = 0; !stop; i++) {
    const line = '- alice note ' + workerData.tag + ' ' + i
    try {
      const res = await fetch(baseUrl + '/files/memory/alice-log.md', {
        method: 'POST',
        headers: { 'content-type': 'text/markdown', authorization: 'Bearer ' + token },
        body: line,
        signal: AbortSignal.timeout(30000),
      })
      await res.text()
      if (res.status >= 500) out.search5xx++
      if (res.status === 200) out.appended.push(line)
    } catch { out.search5xx++ }
    await sleep(250)
  }
}
Promise.all([health(), search(), append()]).then(() => parentPort.postMessage(out))
`

export function startMonitor(opts: {
  baseUrl: string
  pid: number | undefined
  token: string
  queries: string[]
  /** Tells this monitor's appended lines from another's. */
  tag: string
}) {
  const worker = new Worker(PROBES, {
    eval: true,
    workerData: { baseUrl: opts.baseUrl, token: opts.token, queries: opts.queries, tag: opts.tag },
  })
  const rss: number[] = []
  const sampler = setInterval(() => rss.push(rssMb(opts.pid)), 200)
  return {
    /** The server's RSS right now, MB. */
    rssNow: () => rssMb(opts.pid),
    stop(): Promise<MonitorReport> {
      clearInterval(sampler)
      return new Promise((resolve) => {
        worker.once('message', (out: Omit<MonitorReport, 'rss'>) => {
          void worker.terminate()
          resolve({ ...out, rss })
        })
        worker.postMessage('stop')
      })
    },
  }
}
