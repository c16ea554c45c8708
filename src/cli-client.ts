/**
 * `mnemo search|get|index|flush`: one call to a running mnemo over REST, through a client
 * typed by the OpenAPI document (src/client/api-types.ts, openapi-fetch). Where and as
 * whom: MNEMO_URL, MNEMO_TOKEN (or _FILE), MNEMO_AGENT, MNEMO_TIMEOUT_MS (client-config.ts). Prints
 * text for people, or the JSON answer with --json; exits 1 with `CODE: message` on an error.
 */
import { parseArgs } from 'node:util'
import createClient from 'openapi-fetch'
import type { paths } from './client/api-types.js'
import { loadClientConfig } from './config/client-config.js'
import { ConfigError } from './config/load-config.js'

export const CLIENT_USAGE = `       mnemo search <query…> [--max-results N] [--min-score X] [--json]
       mnemo get <path> [--from N] [--lines N] [--json]
       mnemo index [--full] [--wait] [--json]
       mnemo flush [note…] [--flush-id ID] [--json]   (no notes: one per stdin line)
`

type Answer = { data?: unknown; error?: unknown; response: Response }

/** Characters of the progress bar of `mnemo index --wait`. */
const BAR_WIDTH = 24

type Progress = NonNullable<paths['/index']['get']['responses'][200]['content']['application/json']['progress']>

/** One line of `mnemo index --wait` progress: a bar of files done, then the counts. */
export function progressLine(p: Progress, width: number): string {
  const share = p.filesTotal > 0 ? Math.min(1, p.filesDone / p.filesTotal) : 0
  const filled = Math.round(share * width)
  const embedded = p.chunksToEmbed > 0 ? `, ${p.chunksEmbedded}/${p.chunksToEmbed} chunks embedded` : ''
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.phase} ${p.filesDone}/${p.filesTotal} files${embedded}`
}

class CliError extends Error {}

/** The answer's body, or a CliError saying what went wrong. */
function bodyOf<T>(answer: Answer & { data?: T }): T {
  if (answer.response.ok && answer.data !== undefined) return answer.data
  const err = answer.error as { code?: string; message?: string } | undefined
  throw new CliError(`${err?.code ?? `HTTP ${answer.response.status}`}: ${err?.message ?? answer.response.statusText}`)
}

async function readStdinLines(): Promise<string[]> {
  let text = ''
  for await (const chunk of process.stdin) text += String(chunk)
  return text.split('\n').filter((l) => l.trim() !== '')
}

export async function runClientCommand(command: string, argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      'max-results': { type: 'string' },
      'min-score': { type: 'string' },
      from: { type: 'string' },
      lines: { type: 'string' },
      full: { type: 'boolean', default: false },
      wait: { type: 'boolean', default: false },
      'flush-id': { type: 'string' },
    },
  })
  const config = loadClientConfig(process.env, process.cwd())
  const headers: Record<string, string> = {}
  if (config.token) headers.authorization = `Bearer ${config.token}`
  if (config.agent) headers['x-mnemo-agent'] = config.agent
  const client = createClient<paths>({
    baseUrl: config.url,
    headers,
    fetch: (request) => fetch(request, { signal: AbortSignal.timeout(config.timeoutMs) }),
  })
  const num = (v: string | undefined) => (v === undefined ? undefined : Number(v))
  const print = (text: string): void => void process.stdout.write(text.endsWith('\n') ? text : `${text}\n`)

  switch (command) {
    case 'search': {
      const query = positionals.join(' ')
      if (!query) throw new CliError('VALIDATION_FAILED: what to search for?')
      const body = {
        query,
        ...(values['max-results'] && { maxResults: num(values['max-results']) }),
        ...(values['min-score'] && { minScore: num(values['min-score']) }),
      }
      const found = bodyOf(await client.POST('/search', { body }))
      if (values.json) return print(JSON.stringify(found, null, 2))
      if (found.results.length === 0) return print('nothing remembered about that')
      for (const r of found.results) {
        print(`${r.path}#L${r.startLine}-L${r.endLine}  score ${r.score.toFixed(2)}`)
        print(r.snippet.replace(/^/gm, '    '))
      }
      return
    }
    case 'get': {
      const [path] = positionals
      if (!path) throw new CliError('VALIDATION_FAILED: which file?')
      const query = {
        ...(values.from && { from: num(values.from) }),
        ...(values.lines && { lines: num(values.lines) }),
      }
      const file = bodyOf(await client.GET('/files/{path}', { params: { path: { path }, query } }))
      return print(values.json ? JSON.stringify(file, null, 2) : file.text)
    }
    case 'index': {
      const pending = client.POST('/index', {
        params: { query: values.wait ? { wait: 'true' } : {} },
        body: { full: values.full },
      })
      // A person waiting at a terminal sees the sync move (GET /index every half second).
      const bar =
        values.wait && process.stderr.isTTY
          ? setInterval(() => {
              void client.GET('/index').then(({ data }) => {
                if (data?.progress) process.stderr.write(`\r${progressLine(data.progress, BAR_WIDTH)}`)
              })
            }, 500)
          : undefined
      const answer = await pending.finally(() => {
        clearInterval(bar)
        if (bar) process.stderr.write('\r\x1b[K')
      })
      const status = bodyOf(answer)
      if (values.json) return print(JSON.stringify(status, null, 2))
      const last = status.lastSync
      const outcome = last ? `last sync ${last.ok ? 'ok' : `failed: ${last.error ?? ''}`} in ${last.durationMs} ms` : ''
      return print(
        `${answer.response.status === 202 ? 'sync started' : 'index current'}: ${status.files} files, ${status.chunks} chunks${outcome ? `; ${outcome}` : ''}`,
      )
    }
    case 'flush': {
      const entries = positionals.length > 0 ? positionals : await readStdinLines()
      if (entries.length === 0) throw new CliError('VALIDATION_FAILED: no notes to flush')
      const body = { entries, ...(values['flush-id'] && { flushId: values['flush-id'] }) }
      const flushed = bodyOf(await client.POST('/flush', { body }))
      if (values.json || !('path' in flushed)) return print(JSON.stringify(flushed, null, 2))
      return print(
        `${flushed.replayed ? 'already flushed' : 'flushed'}: ${flushed.path}#L${flushed.startLine}-L${flushed.endLine}`,
      )
    }
  }
}

/** Runs a client command, turning failures into a one-line message and exit code 1. */
export async function clientMain(command: string, argv: string[]): Promise<void> {
  try {
    await runClientCommand(command, argv)
  } catch (err) {
    const config = err instanceof ConfigError || err instanceof CliError
    const reason = err instanceof Error ? err.message : String(err)
    const where = process.env.MNEMO_URL ?? 'http://127.0.0.1:8787'
    process.stderr.write(`mnemo: ${config ? reason : `cannot reach mnemo at ${where}: ${reason}`}\n`)
    process.exitCode = 1
  }
}
