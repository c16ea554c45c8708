import { execFile } from 'node:child_process'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
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
      ['--import', 'tsx', path.join(ROOT, 'src/cli.ts'), ...args],
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
    env = { MNEMO_URL: await service.ready(), MNEMO_TOKEN: TOKEN }
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

  it('exits 1 with the error code and message on an error, a wrong token or no service', async () => {
    const missing = await mnemo(['get', 'memory/none.md'], env)
    expect(missing).toMatchObject({ code: 1, stdout: '' })
    expect(missing.stderr).toMatch(/^mnemo: FILE_NOT_FOUND: /)
    const denied = await mnemo(['search', 'redis'], { ...env, MNEMO_TOKEN: 'wrong-token-000000000' })
    expect(denied.stderr).toMatch(/^mnemo: UNAUTHORIZED: /)
    const down = await mnemo(['search', 'redis'], { MNEMO_URL: 'http://127.0.0.1:9', MNEMO_TOKEN: TOKEN })
    expect(down).toMatchObject({ code: 1 })
    expect(down.stderr).toContain('mnemo: cannot reach mnemo at http://127.0.0.1:9')
  })
})
