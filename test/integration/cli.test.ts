import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { entryOf, nodeArgs } from '../helpers/entries.js'
import { startService, type ServiceProcess } from '../helpers/service-process.js'
import { createTempWorkspace } from '../helpers/temp-workspace.js'

const ROOT = path.resolve(import.meta.dirname, '../..')
const TOKEN = 'cli-token-0123456789abc'

type Run = { code: number; stdout: string; stderr: string }

/** `mnemo <args>` as a child process, as a user runs it. */
function mnemo(args: string[], env: Record<string, string>, stdin?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [...nodeArgs(entryOf('cli')), ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    )
    child.stdin?.end(stdin ?? '')
  })
}

describe('mnemo search|get|index|flush against a running service', () => {
  let service: ServiceProcess
  let env: Record<string, string>
  beforeAll(async () => {
    const ws = createTempWorkspace({ corpus: true })
    service = startService({ MNEMO_WORKSPACE: ws.root, MNEMO_DATA_DIR: ws.dataDir, MNEMO_API_TOKEN: TOKEN }, ws.base)
    env = { MNEMO_URL: await service.ready(), MNEMO_API_TOKEN: TOKEN }
  })
  afterAll(() => service.kill('SIGKILL'))

  it('searches, citing path#Lstart-Lend, and says when nothing is remembered', async () => {
    const found = await mnemo(['search', 'POSTGRES_URL'], env)
    expect(found.code).toBe(0)
    expect(found.stdout).toMatch(/^MEMORY\.md#L\d+-L\d+ {2}score 0\.\d\d$/m)
    expect(found.stdout).toContain('POSTGRES_URL')
    const json = JSON.parse((await mnemo(['search', 'POSTGRES_URL', '--json', '--max-results', '1'], env)).stdout) as {
      results: unknown[]
    }
    expect(json.results).toHaveLength(1)
    expect((await mnemo(['search', 'vitamin', 'D', 'deficiency'], env)).stdout).toBe('nothing remembered about that\n')
  })

  it('reads a file or a window of it, and syncs', async () => {
    const first = await mnemo(['get', 'MEMORY.md', '--lines', '1'], env)
    expect(first).toMatchObject({ code: 0, stdout: expect.stringMatching(/^# .+\n$/) })
    const synced = await mnemo(['index', '--wait'], env)
    expect(synced.stdout).toMatch(/^index current: 5 files, \d+ chunks; last sync ok in \d+(\.\d+)? ms\n$/)
  })

  it('flushes notes from arguments or stdin, once per flush id', async () => {
    const first = await mnemo(['flush', 'the CLI can flush', '--flush-id', 'cli-1'], env)
    expect(first.stdout).toMatch(/^flushed: memory\/\d{4}-\d{2}-\d{2}\.md#L\d+-L\d+\n$/)
    const again = await mnemo(['flush', 'the CLI can flush', '--flush-id', 'cli-1'], env)
    expect(again.stdout).toBe(first.stdout.replace('flushed', 'already flushed'))
    const piped = await mnemo(['flush'], env, 'one from stdin\nand another\n')
    expect(piped.code).toBe(0)
    const found = await mnemo(['search', 'another', 'from', 'stdin', '--json'], env)
    expect(found.stdout).toContain('and another')
  })

  it('replaces a fact by key or by citation, and forgets a session', async () => {
    const keyed = await mnemo(['flush', 'the deploy window is friday noon', '--key', 'deploy-window'], env)
    expect(keyed.stdout).toMatch(/^flushed: /)
    const byKey = await mnemo(['supersede', '--key', 'deploy-window', 'the deploy window is monday 9:00'], env)
    expect(byKey).toMatchObject({ code: 0, stderr: '' })
    expect(byKey.stdout).toMatch(/^superseded memory\/[\d-]+\.md#L\d+-L\d+; now memory\/[\d-]+\.md#L\d+-L\d+\n$/)
    const found = await mnemo(['search', 'deploy', 'window', '--json', '--min-score', '0'], env)
    const snippets = (JSON.parse(found.stdout) as { results: { snippet: string }[] }).results.map((r) => r.snippet)
    expect(snippets.join('\n')).toContain('monday')
    expect(snippets.join('\n')).not.toContain('friday')
    const now = /now (\S+)\n$/.exec(byKey.stdout)?.[1] ?? ''
    const byCitation = await mnemo(['supersede', now, 'the deploy window is tuesday 9:00'], env)
    expect(byCitation.stdout).toContain(`superseded ${now}`)

    await mnemo(['flush', 'the zebracorn quintessence', '--session', 'cli-s1'], env)
    const forgot = await mnemo(['forget', 'cli-s1'], env)
    expect(forgot.stdout).toMatch(/^forgot 1 entries of session cli-s1: memory\/[\d-]+\.md#L\d+-L\d+\n$/)
    expect((await mnemo(['search', 'zebracorn', 'quintessence'], env)).stdout).toBe('nothing remembered about that\n')
    const stale = await mnemo(['supersede', now, 'again'], env)
    expect(stale).toMatchObject({ code: 1, stderr: expect.stringMatching(/^mnemo: PRECONDITION_FAILED: /) })
  })

  it('acts for a user inside the agent with --user or MNEMO_USER, never seeing another user', async () => {
    const flushed = await mnemo(['flush', 'Dana keeps the spare key under the blue pot', '--user', 'dana'], env)
    expect(flushed.stdout).toMatch(/^flushed: users\/dana\/memory\/\d{4}-\d{2}-\d{2}\.md#L\d+-L\d+\n$/)
    const own = await mnemo(['search', 'spare key blue pot'], { ...env, MNEMO_USER: 'dana' })
    expect(own.stdout).toMatch(/^users\/dana\/memory\/.+#L\d+-L\d+ {2}score/m)
    for (const other of [['--user', 'erin'], []]) {
      const found = await mnemo(['search', 'spare key blue pot', ...other], env)
      expect(found.stdout, other.join(' ')).not.toContain('users/dana')
    }
    const refused = await mnemo(
      ['get', flushed.stdout.slice('flushed: '.length).split('#')[0] as string, '--user', 'erin'],
      env,
    )
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringMatching(/^mnemo: USER_FORBIDDEN: /) as unknown })
    const invalid = await mnemo(['search', 'x', '--user', 'Dana'], env)
    expect(invalid.code).not.toBe(0)
  })

  it('exits 1 with the error code and message on an error, a wrong token or no service', async () => {
    const missing = await mnemo(['get', 'memory/none.md'], env)
    expect(missing).toMatchObject({ code: 1, stdout: '' })
    expect(missing.stderr).toMatch(/^mnemo: FILE_NOT_FOUND: /)
    const denied = await mnemo(['search', 'redis'], { ...env, MNEMO_API_TOKEN: 'wrong-token-000000000' })
    expect(denied.stderr).toMatch(/^mnemo: UNAUTHORIZED: /)
    const down = await mnemo(['search', 'redis'], { MNEMO_URL: 'http://127.0.0.1:9', MNEMO_API_TOKEN: TOKEN })
    expect(down).toMatchObject({ code: 1 })
    expect(down.stderr).toContain('mnemo: cannot reach mnemo at http://127.0.0.1:9')
  })

  it('reads the token from the older MNEMO_TOKEN too, and refuses two different tokens', async () => {
    const old = await mnemo(['status'], { MNEMO_URL: env.MNEMO_URL as string, MNEMO_TOKEN: TOKEN })
    expect(old.code).toBe(0)
    const two = await mnemo(['status'], { ...env, MNEMO_TOKEN: 'other-token-0123456789' })
    expect(two).toMatchObject({ code: 1, stdout: '' })
    expect(two.stderr).toContain('MNEMO_TOKEN: holds another token than MNEMO_API_TOKEN')
    expect(two.stderr).not.toContain(TOKEN)
  })

  it('says whether it is ready and what the index holds, for people or as JSON', async () => {
    const status = await mnemo(['status'], env)
    expect(status.code).toBe(0)
    const lines = status.stdout.split('\n')
    expect(lines[0]).toBe(`mnemo at ${env.MNEMO_URL as string}: ready`)
    expect(lines.slice(1, 5)).toEqual([
      expect.stringMatching(/^index: \d+ files, \d+ chunks on sqlite$/),
      'search: keyword (no embedding provider)',
      'watch: watching',
      expect.stringMatching(/^sync: (idle|changes waiting|running.*); last ok at \S+ in \d+ ms$/),
    ])
    const json = JSON.parse((await mnemo(['status', '--json'], env)).stdout) as { ready: unknown; index: unknown }
    expect(json.ready).toMatchObject({ ready: true, checks: { index: 'open', initialSync: 'done' } })
    expect(json.index).toMatchObject({ files: expect.any(Number), engine: { kind: 'sqlite', ok: true } })
  })
})

describe('mnemo --help, --version and usage errors (no service needed)', () => {
  const nowhere = { MNEMO_URL: 'http://127.0.0.1:9' }

  it('prints the usage on stdout for --help, and the version for --version', async () => {
    const help = await mnemo(['--help'], nowhere)
    expect(help).toMatchObject({ code: 0, stderr: '' })
    for (const command of ['serve', 'mcp', 'search', 'get', 'index', 'flush', 'supersede', 'forget', 'status']) {
      expect(help.stdout).toMatch(new RegExp(`mnemo \\[?${command}\\b`))
    }
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }
    expect(await mnemo(['--version'], nowhere)).toMatchObject({ code: 0, stdout: `mnemo ${pkg.version}\n` })
  })

  it.each([
    [['--bogus'], 'unknown option "--bogus"'],
    [['serach', 'redis'], 'unknown command "serach"'],
    [['search', 'redis', '--bogus'], "mnemo search: unknown option '--bogus'"],
    [['get', 'MEMORY.md', '--full'], "mnemo get: unknown option '--full'"],
    [['search'], 'mnemo search: what to search for?'],
    [['get'], 'mnemo get: which file?'],
    [['search', 'redis', '--max-results', 'ten'], '--max-results takes a number, not "ten"'],
    [['status', 'now'], 'mnemo status: takes no arguments'],
    [['supersede', 'MEMORY.md'], 'mnemo supersede: which entry?'],
    [['supersede', 'MEMORY.md#L3'], 'mnemo supersede: what is true now?'],
    [['forget'], 'mnemo forget: which session?'],
    [['flush', 'x', '--origin', 'boss'], '--origin is one of owner, agent, untrusted, system, not "boss"'],
    [['serve', '--port', '9'], 'mnemo serve takes no arguments'],
  ])('refuses %j with exit code 2 and the usage, without calling mnemo', async (args, message) => {
    const run = await mnemo(args, nowhere)
    expect(run).toMatchObject({ code: 2, stdout: '' })
    expect(run.stderr).toContain(message)
    expect(run.stderr).toContain('usage: mnemo')
    expect(run.stderr).not.toContain('cannot reach')
  })
})
