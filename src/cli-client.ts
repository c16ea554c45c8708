/**
 * `mnemo search|get|index|flush|supersede|forget|status`: calls to a running mnemo over REST, through
 * @mnemo/client (src/client, typed by the OpenAPI document). Where and as
 * whom: MNEMO_URL, MNEMO_API_TOKEN (or MNEMO_TOKEN, or a _FILE variant), MNEMO_AGENT,
 * MNEMO_USER (or --user), MNEMO_TIMEOUT_MS (client-config.ts). Prints text for people, or the JSON answer with
 * --json; exits 1 with `CODE: message` on an error, 2 with the usage on a usage error (an
 * unknown option, a missing argument), before any call.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { Mnemo, MnemoError } from './client/index.js'
import type { IndexStatus, Ready } from './client/index.js'
import { loadClientConfig } from './config/client-config.js'
import { ConfigError } from './shared/config-error.js'

export const CLIENT_USAGE = `       mnemo search <query…> [--max-results N] [--min-score X] [--json]
       mnemo get <path> [--from N] [--lines N] [--json]
       mnemo index [--full] [--wait] [--json]
       mnemo flush [note…] [--flush-id ID] [--session ID] [--key K] [--origin O] [--json]   (no notes: stdin lines)
       mnemo supersede <path#Lstart-Lend> <new text…> [--origin O] [--json]   replace a fact, the old one kept
       mnemo supersede --key K <new text…> [--origin O] [--json]   the active entry with that key
       mnemo forget <session-id> [--json]   remove every flush entry of a session
       mnemo status [--json]   is it ready, and what its index holds (GET /ready, GET /index)
  client settings: MNEMO_URL (http://127.0.0.1:8787), MNEMO_API_TOKEN or MNEMO_API_TOKEN_FILE,
  MNEMO_AGENT (with the admin token), MNEMO_USER or --user <id> (a user inside the agent), MNEMO_TIMEOUT_MS (30000)
`

type Options = NonNullable<ParseArgsConfig['options']>

/** Every command: --json, and --user to act for a user inside the agent (X-Mnemo-User; MNEMO_USER). */
const JSON_FLAG: Options = { json: { type: 'boolean', default: false }, user: { type: 'string' } }

/** The options each command takes; any other is a usage error. */
const COMMAND_OPTIONS: Record<string, Options> = {
  search: { ...JSON_FLAG, 'max-results': { type: 'string' }, 'min-score': { type: 'string' } },
  get: { ...JSON_FLAG, from: { type: 'string' }, lines: { type: 'string' } },
  index: { ...JSON_FLAG, full: { type: 'boolean', default: false }, wait: { type: 'boolean', default: false } },
  flush: {
    ...JSON_FLAG,
    'flush-id': { type: 'string' },
    session: { type: 'string' },
    key: { type: 'string' },
    origin: { type: 'string' },
  },
  supersede: { ...JSON_FLAG, key: { type: 'string' }, origin: { type: 'string' } },
  forget: JSON_FLAG,
  status: JSON_FLAG,
}

/** Characters of the progress bar of `mnemo index --wait`. */
const BAR_WIDTH = 24

type Progress = NonNullable<IndexStatus['progress']>

/** One line of `mnemo index --wait` progress: a bar of files done, then the counts. */
export function progressLine(p: Progress, width: number): string {
  const share = p.filesTotal > 0 ? Math.min(1, p.filesDone / p.filesTotal) : 0
  const filled = Math.round(share * width)
  const embedded = p.chunksToEmbed > 0 ? `, ${p.chunksEmbedded}/${p.chunksToEmbed} chunks embedded` : ''
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.phase} ${p.filesDone}/${p.filesTotal} files${embedded}`
}

/** A failure the service or the command line explained: printed as it is. */
export class CliError extends Error {}
/** The command line itself is wrong: exit 2 with the usage, and no call is made. */
export class UsageError extends Error {}

/** parseArgs with this command's options, its errors (an unknown option…) as usage errors. */
export function parseCommand(command: string, argv: string[], options = COMMAND_OPTIONS[command] ?? {}) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options, strict: true })
  } catch (err) {
    // Node's message goes on about `--` for positionals that start with a dash: its first sentence says it.
    throw new UsageError((err instanceof Error ? err.message : String(err)).replace(/\. .*$/s, '').toLowerCase())
  }
}

/** A numeric option's value, or a usage error naming it. */
function numberOption(name: string, value: string | boolean | undefined): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (typeof value !== 'string' || value.trim() === '' || !Number.isFinite(n)) {
    throw new UsageError(`--${name} takes a number, not "${String(value)}"`)
  }
  return n
}

/** `path#L3-L4` (or `path#L3`, or `path:3`) as a path and lines; null when it is not one. */
export function parseCitation(text: string): { path: string; startLine: number; endLine: number } | null {
  const m = /^(.+?)(?:#L(\d+)(?:-L(\d+))?|:(\d+)(?:-(\d+))?)$/.exec(text)
  if (!m) return null
  const start = Number(m[2] ?? m[4])
  const end = Number(m[3] ?? m[5] ?? start)
  return start >= 1 && end >= start ? { path: m[1] as string, startLine: start, endLine: end } : null
}

const ORIGIN_NAMES = ['owner', 'agent', 'untrusted', 'system'] as const

/** --origin's value, or a usage error. */
function originOption(value: string | undefined): (typeof ORIGIN_NAMES)[number] | undefined {
  if (value === undefined) return undefined
  if (!(ORIGIN_NAMES as readonly string[]).includes(value)) {
    throw new UsageError(`--origin is one of ${ORIGIN_NAMES.join(', ')}, not "${value}"`)
  }
  return value as (typeof ORIGIN_NAMES)[number]
}

const cite = (l: { path: string; startLine: number; endLine: number }) => `${l.path}#L${l.startLine}-L${l.endLine}`

/**
 * A call's answer, or a CliError saying what went wrong (`CODE: message`); no answer at all
 * is fetch's own error, whose cause reportFailure explains (ECONNREFUSED: is it running?).
 */
async function answer<T>(call: Promise<T>): Promise<T> {
  try {
    return await call
  } catch (err) {
    if (err instanceof MnemoError && err.code === 'UNREACHABLE' && err.cause instanceof Error) throw err.cause
    if (err instanceof MnemoError) throw new CliError(`${err.code}: ${err.message}`)
    throw err
  }
}

async function readStdinLines(): Promise<string[]> {
  let text = ''
  for await (const chunk of process.stdin) text += String(chunk)
  return text.split('\n').filter((l) => l.trim() !== '')
}

export async function runClientCommand(command: string, argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand(command, argv)
  const num = (name: string) => numberOption(name, values[name] as string | boolean | undefined)
  const str = (name: string) => values[name] as string | undefined
  // Checked before any call: a wrong command line never reaches the service.
  if (command === 'search' && positionals.length === 0) throw new UsageError('what to search for?')
  if (command === 'get' && positionals.length !== 1) throw new UsageError('which file? (one path)')
  if (['index', 'status'].includes(command) && positionals.length > 0) {
    throw new UsageError(`takes no arguments, not "${positionals.join(' ')}"`)
  }
  const origin = originOption(str('origin'))
  const key = str('key')
  const old = command === 'supersede' && key === undefined ? parseCitation(positionals[0] ?? '') : null
  if (command === 'supersede') {
    if (key === undefined && !old) throw new UsageError('which entry? (path#Lstart-Lend, or --key K)')
    if (positionals.length < (old ? 2 : 1)) throw new UsageError('what is true now? (the new text)')
  }
  if (command === 'forget' && positionals.length !== 1) throw new UsageError('which session? (one id)')
  const searchNumbers = { maxResults: num('max-results'), minScore: num('min-score') }
  const window = { from: num('from'), lines: num('lines') }
  const user = str('user')
  const config = loadClientConfig(
    user === undefined ? process.env : { ...process.env, MNEMO_USER: user },
    process.cwd(),
  )
  const client = new Mnemo({
    baseUrl: config.url,
    timeoutMs: config.timeoutMs,
    ...(config.token && { token: config.token }),
    ...(config.agent && { agent: config.agent }),
    ...(config.user && { user: config.user }),
  })
  const print = (text: string): void => void process.stdout.write(text.endsWith('\n') ? text : `${text}\n`)

  switch (command) {
    case 'search': {
      const body = {
        query: positionals.join(' '),
        ...(searchNumbers.maxResults !== undefined && { maxResults: searchNumbers.maxResults }),
        ...(searchNumbers.minScore !== undefined && { minScore: searchNumbers.minScore }),
      }
      const found = await answer(client.search(body))
      if (values.json) return print(JSON.stringify(found, null, 2))
      if (found.results.length === 0) return print('nothing remembered about that')
      for (const r of found.results) {
        print(`${r.path}#L${r.startLine}-L${r.endLine}  score ${r.score.toFixed(2)}`)
        print(r.snippet.replace(/^/gm, '    '))
      }
      return
    }
    case 'get': {
      const path = positionals[0] as string
      const file = await answer(client.read(path, window))
      return print(values.json ? JSON.stringify(file, null, 2) : file.text)
    }
    case 'index': {
      const wait = values.wait === true
      const pending = answer(client.index({ full: values.full === true, wait }))
      // A person waiting at a terminal sees the sync move (GET /index every half second).
      const bar =
        values.wait && process.stderr.isTTY
          ? setInterval(() => {
              void client.status().then(
                (data) => {
                  if (data.progress) process.stderr.write(`\r${progressLine(data.progress, BAR_WIDTH)}`)
                },
                () => undefined,
              )
            }, 500)
          : undefined
      const status = await pending.finally(() => {
        clearInterval(bar)
        if (bar) process.stderr.write('\r\x1b[K')
      })
      if (values.json) return print(JSON.stringify(status, null, 2))
      const last = status.lastSync
      const outcome = last ? `last sync ${last.ok ? 'ok' : `failed: ${last.error ?? ''}`} in ${last.durationMs} ms` : ''
      return print(
        `${wait ? 'index current' : 'sync started'}: ${status.files} files, ${status.chunks} chunks${outcome ? `; ${outcome}` : ''}`,
      )
    }
    case 'flush': {
      const entries = positionals.length > 0 ? positionals : await readStdinLines()
      if (entries.length === 0) throw new CliError('VALIDATION_FAILED: no notes to flush')
      const flushId = str('flush-id')
      const sessionId = str('session')
      const body = {
        entries,
        ...(flushId !== undefined && { flushId }),
        ...(sessionId !== undefined && { sessionId }),
        ...(key !== undefined && { key }),
        ...(origin !== undefined && { origin }),
      }
      const flushed = await answer(client.flush(body))
      if (flushed.duplicate && !values.json) {
        return print(`already remembered: ${(flushed.skipped ?? []).map(cite).join(', ')}`)
      }
      if (values.json || !('path' in flushed)) return print(JSON.stringify(flushed, null, 2))
      return print(
        `${flushed.replayed ? 'already flushed' : 'flushed'}: ${flushed.path}#L${flushed.startLine}-L${flushed.endLine}`,
      )
    }
    case 'supersede': {
      const content = positionals.slice(old ? 1 : 0).join(' ')
      const body = {
        content,
        ...(old ?? {}),
        ...(key !== undefined && { key }),
        ...(origin !== undefined && { origin }),
      }
      const done = await answer(client.supersede(body))
      if (values.json) return print(JSON.stringify(done, null, 2))
      return print(`superseded ${done.superseded.map(cite).join(', ')}; now ${cite(done.entry)}`)
    }
    case 'forget': {
      const done = await answer(client.forget(positionals[0] as string))
      if (values.json) return print(JSON.stringify(done, null, 2))
      if (done.removed.length === 0) return print(`nothing of session ${done.sessionId} in memory`)
      return print(
        `forgot ${done.removed.length} entries of session ${done.sessionId}: ${done.removed.map(cite).join(', ')}`,
      )
    }
    case 'status': {
      // /ready answers 503 (with the same body) while not ready: that is an answer here, not a failure.
      const ready = await answer(client.ready())
      const index = await answer(client.status())
      if (!ready.ready) process.exitCode = 1
      if (values.json) return print(JSON.stringify({ ready, index }, null, 2))
      return print(statusText(config.url, ready, index))
    }
  }
}

/** The values of GET /ready's checks when all is well; any other is named by `mnemo status`. */
const FINE_CHECKS: Record<string, readonly string[]> = {
  index: ['open'],
  initialSync: ['done'],
  lastSync: ['ok', 'none'],
  folder: ['held'],
  workspace: ['writable'],
  embedder: ['none', 'ready'],
  database: ['ok'],
}

/** `mnemo status` for people: whether it is ready (and if not, which checks fail), then the index. */
export function statusText(url: string, ready: Ready, index: IndexStatus): string {
  const failing = Object.entries(ready.checks ?? {})
    .filter(([check, value]) => !(FINE_CHECKS[check] ?? [value]).includes(value))
    .map(([check, value]) => `${check} ${value}`)
  const e = index.embedding
  const search =
    e.provider === 'none'
      ? 'keyword (no embedding provider)'
      : `hybrid, embeddings ${e.provider}${e.model ? ` ${e.model}` : ''}${e.dims ? ` (${e.dims} dims)` : ''}${e.state === 'pending' ? `, pending: ${e.error ?? 'waiting for the model server'}` : ''}`
  const last = index.lastSync
  const lines = [
    `mnemo at ${url}: ${ready.ready ? 'ready' : 'not ready'}${failing.length > 0 ? ` (${failing.join(', ')})` : ''}`,
    `index: ${index.files} files, ${index.chunks} chunks on ${index.engine.kind}${index.engine.ok ? '' : ` (unreachable: ${index.engine.error ?? ''})`}`,
    `search: ${search}${index.vectorsPending > 0 ? `; ${index.vectorsPending} chunks waiting for a vector` : ''}`,
    `watch: ${index.watch.state}${index.watch.reason ? ` (${index.watch.reason})` : ''}`,
    `sync: ${index.progress ? `running, ${progressLine(index.progress, BAR_WIDTH)}` : index.dirty ? 'changes waiting' : 'idle'}${
      last
        ? `; last ${last.ok ? 'ok' : `failed: ${last.error ?? ''}`} at ${last.at} in ${Math.round(last.durationMs)} ms`
        : ''
    }`,
  ]
  return lines.join('\n')
}

/**
 * Runs a client command, turning failures into a one-line message and exit code 1, and
 * usage errors into the message and `usage` with exit code 2.
 */
export async function clientMain(command: string, argv: string[], usage: string): Promise<void> {
  try {
    await runClientCommand(command, argv)
  } catch (err) {
    reportFailure(command, err, usage)
  }
}

/**
 * Prints why a command failed and sets the exit code: 2 with the usage for a wrong command
 * line, 1 with one line otherwise (the service's `CODE: message`, or why it was not reached).
 */
export function reportFailure(command: string, err: unknown, usage: string): void {
  if (err instanceof UsageError) {
    process.stderr.write(`mnemo ${command}: ${err.message}\n${usage}`)
    process.exitCode = 2
    return
  }
  process.exitCode = 1
  const message = err instanceof Error ? err.message : String(err)
  if (err instanceof ConfigError || err instanceof CliError) return void process.stderr.write(`mnemo: ${message}\n`)
  // fetch says only "fetch failed"; its cause says why (ECONNREFUSED: nothing listens there).
  const { code: cause, message: causeMessage } =
    (err as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause ?? {}
  const why = typeof cause === 'string' ? cause : typeof causeMessage === 'string' ? causeMessage : undefined
  if (why === undefined) return void process.stderr.write(`mnemo: ${command} failed: ${message}\n`)
  const where = process.env.MNEMO_URL ?? 'http://127.0.0.1:8787'
  const hint = cause === 'ECONNREFUSED' ? ': is it running? (npm start, or set MNEMO_URL)' : ''
  process.stderr.write(`mnemo: cannot reach mnemo at ${where}: ${message} (${why})${hint}\n`)
}
