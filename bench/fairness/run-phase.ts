/**
 * One phase of the fairness suite (issue 16): a fresh service with three tokens — the
 * admin, a well-behaved agent `alice` with a few hundred notes of her own, and an attacker
 * `mallory` — measured idle, then while the phase's attack runs, then a while after it:
 * /health answer times, alice's search times, RSS, 5xx answers, and whether every write the
 * service acknowledged is on disk.
 */
import fs from 'node:fs'
import path from 'node:path'
import { makeQueries, writeCorpus } from '../corpus.js'
import { startServer, type ServerProcess } from '../server-process.js'
import { median, percentile } from '../stats.js'
import { startMonitor } from './monitor.js'

export const TOKENS = {
  admin: 'admin-token-fairness-0123456789',
  alice: 'alice-token-fairness-0123456789',
  mallory: 'mallory-token-fairness-0123456789',
}

export type Call = (
  method: string,
  route: string,
  opts?: { token?: string; body?: string | Buffer; contentType?: string; agent?: string; timeoutMs?: number },
) => Promise<{ status: number; text: string } | null>

export type AttackContext = {
  server: ServerProcess
  /** A request that counts 5xx answers; null when the connection failed. */
  call: Call
  /** The folders of the agents (`<agentsDir>/<id>/`). */
  agentsDir: string
  /** Files the attack wrote through the API and the service acknowledged: path on disk → content. */
  acknowledged: Map<string, string>
}

export type Phase = {
  name: string
  /** What the phase does, for the table. */
  what: string
  /** Extra settings for the service. */
  env?: Record<string, string>
  /** Prepares folders before the service starts (files on disk). */
  before?: (ctx: { agentsDir: string }) => void
  /** The attack; resolves when the service has finished the work it caused. */
  attack: (ctx: AttackContext) => Promise<string>
}

export type PhaseResult = {
  name: string
  healthP99Ms: number
  healthMaxMs: number
  healthFailed: number
  idleSearchP99Ms: number
  searchP99Ms: number
  rssStartMb: number
  rssPeakMb: number
  rssAfterMb: number
  fivexx: number
  lost: number
  outcome: string
}

async function call(
  server: ServerProcess,
  fivexx: { n: number },
  ...[method, route, opts = {}]: Parameters<Call>
): ReturnType<Call> {
  const headers: Record<string, string> = {}
  if (opts.token) headers.authorization = `Bearer ${opts.token}`
  if (opts.agent) headers['x-mnemo-agent'] = opts.agent
  if (opts.body !== undefined) headers['content-type'] = opts.contentType ?? 'application/json'
  try {
    const res = await fetch(`${server.baseUrl}${route}`, {
      method,
      headers,
      ...(opts.body === undefined ? {} : { body: opts.body }),
      signal: AbortSignal.timeout(opts.timeoutMs ?? 300_000),
    })
    const text = await res.text()
    if (res.status >= 500) fivexx.n++
    return { status: res.status, text }
  } catch {
    return null
  }
}

/** Median RSS over a second, MB. */
async function settledRss(rssNow: () => number): Promise<number> {
  const samples: number[] = []
  for (let i = 0; i < 5; i++) {
    samples.push(rssNow())
    await new Promise((r) => setTimeout(r, 200))
  }
  return median(samples)
}

export async function runPhase(
  phase: Phase,
  opts: { tmp: string; idleSec: number; settleSec: number },
): Promise<PhaseResult> {
  const base = fs.mkdtempSync(path.join(opts.tmp, `${phase.name}-`))
  const agentsDir = path.join(base, 'agents')
  writeCorpus(path.join(agentsDir, 'alice'), 20, 20)
  fs.mkdirSync(path.join(agentsDir, 'mallory', 'memory'), { recursive: true })
  phase.before?.({ agentsDir })
  const server = await startServer({
    MNEMO_WORKSPACE: path.join(base, 'workspace'),
    MNEMO_DATA_DIR: path.join(base, 'data'),
    MNEMO_AGENTS_DIR: agentsDir,
    MNEMO_API_TOKEN: TOKENS.admin,
    MNEMO_AGENT_TOKENS: `alice:${TOKENS.alice},mallory:${TOKENS.mallory}`,
    MNEMO_INDEX_ON_START: 'true',
    ...phase.env,
  })
  const fivexx = { n: 0 }
  const ctx: AttackContext = {
    server,
    call: (...args) => call(server, fivexx, ...args),
    agentsDir,
    acknowledged: new Map(),
  }
  try {
    const queries = makeQueries(50)
    // alice's first search opens her space and waits for its first sync.
    await ctx.call('POST', '/search', { token: TOKENS.alice, body: JSON.stringify({ query: 'warm up' }) })
    const monitorOpts = { baseUrl: server.baseUrl, pid: server.pid, token: TOKENS.alice, queries }
    const idle = startMonitor({ ...monitorOpts, tag: 'idle' })
    await new Promise((r) => setTimeout(r, opts.idleSec * 1000))
    const idleReport = await idle.stop()
    const rssStartMb = median(idleReport.rss)

    const monitor = startMonitor({ ...monitorOpts, tag: 'during' })
    const outcome = await phase.attack(ctx)
    const during = await monitor.stop()
    await new Promise((r) => setTimeout(r, opts.settleSec * 1000))
    const rssAfterMb = await settledRss(monitor.rssNow)

    let lost = 0
    for (const [file, content] of ctx.acknowledged) {
      const onDisk = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null
      if (onDisk !== content) lost++
    }
    const log = fs.readFileSync(path.join(agentsDir, 'alice', 'memory', 'alice-log.md'), 'utf8').split('\n')
    const logged = new Set(log)
    lost += [...idleReport.appended, ...during.appended].filter((line) => !logged.has(line)).length
    return {
      name: phase.name,
      healthP99Ms: percentile(during.health, 99),
      healthMaxMs: Math.max(...during.health),
      healthFailed: during.healthFailed,
      idleSearchP99Ms: percentile(idleReport.search, 99),
      searchP99Ms: percentile(during.search, 99),
      rssStartMb,
      rssPeakMb: Math.max(rssStartMb, ...during.rss),
      rssAfterMb,
      fivexx: fivexx.n + during.search5xx + idleReport.search5xx,
      lost,
      outcome,
    }
  } finally {
    await server.stop()
    fs.rmSync(base, { recursive: true, force: true })
  }
}
