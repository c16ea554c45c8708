/**
 * The database taken away under load (issue 30). Two replicas share one PostgreSQL server
 * and one workspace; clients mix flushes, appends, new files and searches through both, for
 * two agents, while the server is restarted (`-m fast`, `-m immediate`, or held down past
 * the time a request waits for it) and every backend is killed with pg_terminate_backend.
 *
 * What must hold, and what the report counts: both replicas stay alive; every answer is a
 * success or 503 INDEX_UNAVAILABLE; both replicas answer /ready 200 within 10 s of the
 * database; every acknowledged write is on disk once and every refused one (503) is not;
 * flushes without an answer, retried with their flushId, land once; and once the database is
 * back the index catches up by itself (no watcher, no sync asked for): every file's indexed
 * SHA-256 is the one on disk, and acknowledged lines are found by search.
 *
 * Run by the CI test (database-chaos.test.ts) and by `npm run stress -- --only faults
 * --engine postgres` (bench/stress.ts), which starts the replicas its own way.
 */
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'

/** A replica as its starter runs it. */
export type Replica = { url: string; alive(): boolean; stop(): Promise<void> }

export type Fault = { kind: 'terminate' } | { kind: 'restart'; mode: 'fast' | 'immediate'; downSeconds: number }

export type ChaosOptions = {
  databaseUrl: string
  /** scripts/with-postgres's MNEMO_TEST_PG_CTL: `<script> fast|immediate [seconds down]`. */
  pgCtl: string
  /** A folder of the run's own (workspace, data dirs). */
  dir: string
  start(env: Record<string, string>): Promise<Replica>
  clients: number
  faults: Fault[]
  /** Load before the first fault, between two, and after the last, in ms. */
  gapMs: number
  /** Progress lines (the stress run prints them). */
  log?: (line: string) => void
}

export type ChaosReport = {
  requests: number
  /** Answers by status and code ("200", "503 INDEX_UNAVAILABLE", "no answer"). */
  answers: Record<string, number>
  /** Answers that are neither a success nor 503 INDEX_UNAVAILABLE. */
  unexpected: string[]
  /** Replicas gone (must be 0). */
  exits: number
  /** Per restart: ms from the server answering to both replicas' /ready 200 (null: not within 10 s). */
  readyMs: (number | null)[]
  acknowledged: { appends: number; flushes: number; files: number }
  /** Writes answered 503, which must have left nothing. */
  refused: number
  lost: string[]
  duplicated: string[]
  /** Refused writes found on disk. */
  refusedPresent: string[]
  /** Files whose index entry differs from the disk once the catch-up time is over. */
  unindexed: string[]
  /** Acknowledged lines searched for and not found, of `searched`. */
  notFound: string[]
  searched: number
}

const AGENTS = ['main', 'ops'] as const
const DAY = '2026-11-28'
/** /ready must answer 200 this soon after the database does, in ms (the bound). */
export const READY_WITHIN_MS = 10_000
/** A client's pause after a 503 or no answer, in ms. */
const BACKOFF_MS = 250
/** How long the index may take to catch up once the load stops, in ms. */
const CATCH_UP_MS = 20_000

const run = promisify(execFile)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

export async function runDatabaseChaos(opts: ChaosOptions): Promise<ChaosReport> {
  const log = opts.log ?? (() => undefined)
  const workspace = path.join(opts.dir, 'workspace')
  const agentsDir = path.join(opts.dir, 'agents')
  const schema = `chaos_${process.pid}_${Date.now() % 1e6}`
  fs.mkdirSync(path.join(workspace, 'memory'), { recursive: true })
  fs.mkdirSync(path.join(agentsDir, 'ops', 'memory'), { recursive: true })
  fs.writeFileSync(path.join(workspace, 'MEMORY.md'), '# Facts\nThe lighthouse keeper is called Ingrid.\n')
  fs.writeFileSync(path.join(agentsDir, 'ops', 'MEMORY.md'), '# Ops\nThe pager rotates on Mondays.\n')
  const rootOf = (agent: string) => (agent === 'main' ? workspace : path.join(agentsDir, agent))

  const env = (name: string) => ({
    MNEMO_WORKSPACE: workspace,
    MNEMO_AGENTS_DIR: agentsDir,
    MNEMO_DATA_DIR: path.join(opts.dir, `data-${name}`),
    MNEMO_DATABASE_URL: opts.databaseUrl,
    MNEMO_DATABASE_SCHEMA: schema,
    MNEMO_EMBED_PROVIDER: 'none',
    // No watcher: what the index lacks after an outage must come from the service's own
    // catch-up, not from file events.
    MNEMO_WATCH: 'false',
    MNEMO_INDEX_ON_START: 'true',
  })
  const replicas = [await opts.start(env('a')), await opts.start(env('b'))]
  let running = true
  const report: ChaosReport = {
    requests: 0,
    answers: {},
    unexpected: [],
    exits: 0,
    readyMs: [],
    acknowledged: { appends: 0, flushes: 0, files: 0 },
    refused: 0,
    lost: [],
    duplicated: [],
    refusedPresent: [],
    unindexed: [],
    notFound: [],
    searched: 0,
  }
  /** Counts replicas gone; the run stops early once one is (nothing after would tell more). */
  const checkAlive = () => {
    report.exits = replicas.filter((r) => !r.alive()).length
    if (report.exits > 0) running = false
    return report.exits === 0
  }

  async function call(url: string, agent: string, method: string, route: string, body?: string, type?: string) {
    report.requests++
    let key = 'no answer'
    try {
      const res = await fetch(`${url}${route}`, {
        method,
        headers: { 'x-mnemo-agent': agent, ...(type && { 'content-type': type }) },
        ...(body !== undefined && { body }),
        signal: AbortSignal.timeout(20_000),
      })
      const text = await res.text()
      const code = res.ok ? '' : ` ${(JSON.parse(text) as { code?: string }).code ?? ''}`
      key = `${res.status}${code}`
      if (!res.ok && key !== '503 INDEX_UNAVAILABLE') report.unexpected.push(`${method} ${route}: ${key}`)
      return { status: res.status, text }
    } catch {
      return null
    } finally {
      report.answers[key] = (report.answers[key] ?? 0) + 1
    }
  }

  /** Per agent and file: acknowledged lines; refused lines; flushes by id; files written whole. */
  const appended = new Map<string, string[]>()
  const refusedLines = new Map<string, string[]>()
  const flushed = new Map<string, { agent: string; note: string }>()
  const unanswered: { agent: string; flushId: string; note: string }[] = []
  const files = new Map<string, string>()
  const refusedFiles: string[] = []
  const add = (map: Map<string, string[]>, key: string, line: string) => map.set(key, [...(map.get(key) ?? []), line])

  async function client(id: number): Promise<void> {
    for (let n = 0; running && replicas.every((r) => r.alive()); n++) {
      const url = (replicas[(id + n) % 2] as Replica).url
      const agent = AGENTS[id % AGENTS.length] as string
      const token = `c${id}n${n}z`
      const op = n % 5
      let res: Awaited<ReturnType<typeof call>>
      if (op === 0 || op === 3) {
        const flushId = `chaos-${id}-${n}`
        const note = `- flush ${token} from client ${id}`
        res = await call(
          url,
          agent,
          'POST',
          '/flush',
          JSON.stringify({ entries: [note], date: DAY, flushId }),
          'application/json',
        )
        if (res?.status === 200) flushed.set(flushId, { agent, note })
        else unanswered.push({ agent, flushId, note })
      } else if (op === 1) {
        const file = `${agent}:memory/client-${id}.md`
        const line = `- append ${token} from client ${id}`
        res = await call(url, agent, 'POST', `/files/memory/client-${id}.md`, line, 'text/markdown')
        if (res?.status === 200 || res?.status === 201) add(appended, file, line)
        else if (res?.status === 503) add(refusedLines, file, line)
      } else if (op === 2) {
        const rel = `memory/put-${id}-${n}.md`
        const content = `# Put ${token}\n- written whole by client ${id}\n`
        res = await call(url, agent, 'PUT', `/files/${rel}`, content, 'text/markdown')
        if (res?.status === 201 || res?.status === 200) files.set(`${agent}:${rel}`, content)
        else if (res?.status === 503) refusedFiles.push(`${agent}:${rel}`)
      } else {
        res = await call(
          url,
          agent,
          'POST',
          '/search',
          JSON.stringify({ query: `client ${id} append`, maxResults: 5 }),
          'application/json',
        )
      }
      // As an agent would: a refusal or no answer is retried a little later, not at once.
      if (!res || res.status === 503) await sleep(BACKOFF_MS)
    }
  }

  async function readyWithin(): Promise<number | null> {
    const started = Date.now()
    while (Date.now() - started < READY_WITHIN_MS) {
      const ready = await Promise.all(
        replicas.map((r) =>
          fetch(`${r.url}/ready`, { signal: AbortSignal.timeout(2000) }).then(
            (res) => res.status === 200,
            () => false,
          ),
        ),
      )
      if (ready.every(Boolean)) return Date.now() - started
      await sleep(100)
    }
    return null
  }

  async function terminateBackends(): Promise<number> {
    const admin = new pg.Client({ connectionString: opts.databaseUrl })
    await admin.connect()
    try {
      const { rows } = await admin.query<{ n: number }>(
        `SELECT COUNT(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
      )
      return rows[0]?.n ?? 0
    } finally {
      await admin.end()
    }
  }

  async function inject(fault: Fault): Promise<void> {
    if (fault.kind === 'terminate') {
      log(`pg_terminate_backend: ${await terminateBackends()} backends`)
      return
    }
    const started = Date.now()
    await run(opts.pgCtl, [fault.mode, String(fault.downSeconds)])
    const readyMs = await readyWithin()
    report.readyMs.push(readyMs)
    log(
      `restart -m ${fault.mode}, ${fault.downSeconds} s down (${Date.now() - started} ms): /ready ${readyMs ?? 'not'} ms after`,
    )
  }

  try {
    const clients = Array.from({ length: opts.clients }, (_, i) => client(i))
    for (const fault of opts.faults) {
      await sleep(opts.gapMs)
      if (!checkAlive()) break
      await inject(fault)
    }
    if (checkAlive()) await sleep(opts.gapMs)
    running = false
    await Promise.all(clients)
    if (!checkAlive()) return report
    // Flushes left without an answer are sent again with their id, as an agent would, by as
    // many clients as ran.
    const retry = async (u: (typeof unanswered)[number]) => {
      for (let attempt = 0; attempt < 20 && !flushed.has(u.flushId); attempt++) {
        const url = (replicas[attempt % 2] as Replica).url
        const body = JSON.stringify({ entries: [u.note], date: DAY, flushId: u.flushId })
        const res = await call(url, u.agent, 'POST', '/flush', body, 'application/json')
        if (res?.status === 200) flushed.set(u.flushId, u)
        else await sleep(BACKOFF_MS)
      }
    }
    const queue = [...unanswered]
    await Promise.all(
      Array.from({ length: opts.clients }, async () => {
        for (let u = queue.shift(); u; u = queue.shift()) await retry(u)
      }),
    )
    report.acknowledged = { appends: [...appended.values()].flat().length, flushes: flushed.size, files: files.size }
    report.refused = [...refusedLines.values()].flat().length + refusedFiles.length

    // On disk: acknowledged once, refused never.
    const read = (key: string) => {
      const [agent, rel] = key.split(':') as [string, string]
      const file = path.join(rootOf(agent), rel)
      return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null
    }
    const count = (text: string | null, line: string) => (text ?? '').split('\n').filter((l) => l === line).length
    for (const [key, lines] of appended) {
      const text = read(key)
      for (const line of lines) {
        const n = count(text, line)
        if (n === 0) report.lost.push(`${key} ${line}`)
        if (n > 1) report.duplicated.push(`${key} ${line}`)
      }
    }
    for (const [key, lines] of refusedLines) {
      const text = read(key)
      for (const line of lines) if (count(text, line) > 0) report.refusedPresent.push(`${key} ${line}`)
    }
    for (const { agent, note } of flushed.values()) {
      const n = count(read(`${agent}:memory/${DAY}.md`), note)
      if (n === 0) report.lost.push(`flush ${note}`)
      if (n > 1) report.duplicated.push(`flush ${note}`)
    }
    for (const [key, content] of files) if (read(key) !== content) report.lost.push(key)
    for (const key of refusedFiles) if (read(key) !== null) report.refusedPresent.push(key)

    // The index catches up by itself: every file's indexed hash is the disk's, on both replicas.
    const onDisk = (agent: string) => {
      const dir = path.join(rootOf(agent), 'memory')
      const out = new Map<string, string>([
        ['MEMORY.md', sha256(fs.readFileSync(path.join(rootOf(agent), 'MEMORY.md'), 'utf8'))],
      ])
      for (const name of fs.readdirSync(dir))
        out.set(`memory/${name}`, sha256(fs.readFileSync(path.join(dir, name), 'utf8')))
      return out
    }
    const differences = async () => {
      const found: string[] = []
      for (const replica of replicas) {
        for (const agent of AGENTS) {
          const res = await call(replica.url, agent, 'GET', '/files')
          const listed = new Map(
            res?.status === 200
              ? (JSON.parse(res.text) as { files: { path: string; sha256: string }[] }).files.map((f) => [
                  f.path,
                  f.sha256,
                ])
              : [],
          )
          for (const [rel, hash] of onDisk(agent)) if (listed.get(rel) !== hash) found.push(`${agent}:${rel}`)
        }
      }
      return [...new Set(found)]
    }
    const catchUpUntil = Date.now() + CATCH_UP_MS
    for (;;) {
      report.unindexed = await differences()
      if (report.unindexed.length === 0 || Date.now() > catchUpUntil) break
      await sleep(250)
    }
    // And acknowledged lines are found by search, through either replica.
    const sample = [...appended.entries()].flatMap(([key, lines]) => lines.slice(-3).map((line) => ({ key, line })))
    for (const [i, { key, line }] of sample.entries()) {
      const agent = key.split(':')[0] as string
      const token = /append (\S+)/.exec(line)?.[1] as string
      const url = (replicas[i % 2] as Replica).url
      const res = await call(
        url,
        agent,
        'POST',
        '/search',
        JSON.stringify({ query: token, maxResults: 5 }),
        'application/json',
      )
      report.searched++
      if (!res || res.status !== 200 || !res.text.includes(token)) report.notFound.push(`${key} ${token}`)
    }
    checkAlive()
    return report
  } finally {
    running = false
    await Promise.all(replicas.map((r) => r.stop()))
    const admin = new pg.Client({ connectionString: opts.databaseUrl })
    await admin.connect().then(
      () => admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => admin.end()),
      () => undefined,
    )
  }
}

/** The report's failures, one line each (empty: everything held). */
export function chaosFailures(r: ChaosReport): string[] {
  const out: string[] = []
  if (r.exits > 0) out.push(`${r.exits} of 2 replicas exited`)
  if (r.unexpected.length > 0) out.push(`unexpected answers: ${r.unexpected.slice(0, 5).join('; ')}`)
  const late = r.readyMs.filter((ms) => ms === null).length
  if (late > 0) out.push(`${late} restarts without /ready 200 on both replicas within ${READY_WITHIN_MS} ms`)
  if (r.lost.length > 0) out.push(`acknowledged writes lost: ${r.lost.slice(0, 5).join('; ')}`)
  if (r.duplicated.length > 0) out.push(`acknowledged writes twice: ${r.duplicated.slice(0, 5).join('; ')}`)
  if (r.refusedPresent.length > 0) out.push(`refused writes on disk: ${r.refusedPresent.slice(0, 5).join('; ')}`)
  if (r.unindexed.length > 0) out.push(`index behind the disk: ${r.unindexed.slice(0, 5).join('; ')}`)
  if (r.notFound.length > 0) out.push(`acknowledged lines not found: ${r.notFound.slice(0, 5).join('; ')}`)
  return out
}
