/**
 * `mnemo export` and `mnemo import`: GET /export to stdout, POST /import of a tar file (or
 * stdin with `-`). Streamed both ways, so a backup never sits whole in the CLI's memory.
 * Where and as whom: as the other client commands (client-config.ts); the time limit
 * (MNEMO_TIMEOUT_MS) is for the answer to start, not for the whole transfer.
 */
import fs from 'node:fs'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { CliError, parseCommand, reportFailure, UsageError } from './cli-client.js'
import { loadClientConfig } from './config/client-config.js'

export const TRANSFER_USAGE = `       mnemo export > backup.tar   (admin token, no MNEMO_AGENT: every space; else the agent's own files)
       mnemo import <file.tar | -> [--keep] [--json]   (--keep: leave existing files as they are)
`

/** `CODE: message` of an error answer. */
async function failure(res: Response): Promise<CliError> {
  const body = (await res.json().catch(() => undefined)) as { code?: string; message?: string } | undefined
  return new CliError(`${body?.code ?? `HTTP ${res.status}`}: ${body?.message ?? res.statusText}`)
}

async function run(command: 'export' | 'import', argv: string[]): Promise<void> {
  const options = command === 'import' ? { keep: { type: 'boolean' }, json: { type: 'boolean' } } : {}
  const { values, positionals } = parseCommand(command, argv, options as Parameters<typeof parseCommand>[2])
  if (command === 'export' && positionals.length > 0) throw new UsageError('export takes no arguments')
  if (command === 'import' && positionals.length !== 1) {
    throw new UsageError('which archive? mnemo import backup.tar (or - for stdin)')
  }
  const config = loadClientConfig(process.env, process.cwd())
  const headers: Record<string, string> = {}
  if (config.token) headers.authorization = `Bearer ${config.token}`
  if (config.agent) headers['x-mnemo-agent'] = config.agent
  const answered = new AbortController()
  const timer = setTimeout(() => answered.abort(new Error('no answer in MNEMO_TIMEOUT_MS')), config.timeoutMs)
  try {
    if (command === 'export') {
      if (process.stdout.isTTY)
        throw new CliError('VALIDATION_FAILED: redirect the archive to a file: mnemo export > backup.tar')
      const res = await fetch(`${config.url}/export`, { headers, signal: answered.signal })
      clearTimeout(timer)
      if (!res.ok || !res.body) throw await failure(res)
      await pipeline(Readable.fromWeb(res.body), process.stdout)
      return
    }
    const file = positionals[0] as string
    if (file !== '-' && !fs.statSync(file, { throwIfNoEntry: false })?.isFile()) {
      throw new CliError(`VALIDATION_FAILED: no such file: ${file}`)
    }
    const source = file === '-' ? process.stdin : fs.createReadStream(file)
    const query = values.keep ? '?existing=keep' : ''
    const res = await fetch(`${config.url}/import${query}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/x-tar' },
      body: Readable.toWeb(source),
      duplex: 'half',
      signal: answered.signal,
    })
    clearTimeout(timer)
    if (!res.ok) throw await failure(res)
    const result = (await res.json()) as { files: { outcome: string }[]; written: number; indexed: boolean }
    if (values.json) return void process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
    const kept = result.files.filter((f) => f.outcome === 'kept').length
    const unchanged = result.files.filter((f) => f.outcome === 'unchanged').length
    process.stdout.write(
      `imported: ${result.written} files written, ${unchanged} unchanged, ${kept} kept` +
        `${result.indexed ? '' : ' (some not indexed yet: the next sync indexes them)'}\n`,
    )
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Runs `mnemo export|import`: a wrong command line exits 2 with the usage, other failures
 * exit 1 with a one-line message.
 */
export async function transferMain(command: 'export' | 'import', argv: string[], usage: string): Promise<void> {
  try {
    await run(command, argv)
  } catch (err) {
    reportFailure(command, err, usage)
  }
}
