/**
 * `mnemo export > backup.tar` and `mnemo import backup.tar` as a user runs them, between two
 * running services: what one exported the other finds.
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { entryOf, nodeArgs } from '../helpers/entries.js'
import { startService, type ServiceProcess } from '../helpers/service-process.js'
import { createTempWorkspace } from '../helpers/temp-workspace.js'

const ROOT = path.resolve(import.meta.dirname, '../..')
const TOKEN = 'cli-transfer-token-0123456789'

type Run = { code: number; stdout: Buffer; stderr: string }

/** `mnemo <args>` as a child process; stdout as bytes (an archive is binary). */
function mnemo(args: string[], env: Record<string, string>, stdin?: Buffer): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [...nodeArgs(entryOf('cli')), ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000, encoding: 'buffer' },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr: stderr.toString() }),
    )
    child.stdin?.end(stdin ?? '')
  })
}

describe('mnemo export | mnemo import', () => {
  let from: ServiceProcess
  let to: ServiceProcess
  let envFrom: Record<string, string>
  let envTo: Record<string, string>
  let backup: string
  beforeAll(async () => {
    const a = createTempWorkspace({ corpus: true })
    const b = createTempWorkspace()
    backup = path.join(b.base, 'backup.tar')
    from = startService({ MNEMO_WORKSPACE: a.root, MNEMO_DATA_DIR: a.dataDir, MNEMO_API_TOKEN: TOKEN }, a.base)
    to = startService({ MNEMO_WORKSPACE: b.root, MNEMO_DATA_DIR: b.dataDir, MNEMO_API_TOKEN: TOKEN }, b.base)
    envFrom = { MNEMO_URL: await from.ready(), MNEMO_TOKEN: TOKEN }
    envTo = { MNEMO_URL: await to.ready(), MNEMO_TOKEN: TOKEN }
  })
  afterAll(() => {
    from.kill('SIGKILL')
    to.kill('SIGKILL')
  })

  it('moves the memory to another service, where it is found', async () => {
    const exported = await mnemo(['export'], envFrom)
    expect(exported.code).toBe(0)
    fs.writeFileSync(backup, exported.stdout)
    expect((await mnemo(['search', 'POSTGRES_URL'], envTo)).stdout.toString()).toBe('nothing remembered about that\n')
    const imported = await mnemo(['import', backup], envTo)
    expect(imported).toMatchObject({ code: 0, stderr: '' })
    expect(imported.stdout.toString()).toMatch(/^imported: [1-9]\d* files written, 0 unchanged, 0 kept\n$/)
    expect((await mnemo(['search', 'POSTGRES_URL'], envTo)).stdout.toString()).toMatch(/^MEMORY\.md#L\d+-L\d+/)
    const again = await mnemo(['import', backup, '--keep'], envTo)
    expect(again.stdout.toString()).toMatch(/^imported: 0 files written, 0 unchanged, [1-9]\d* kept\n$/)
    // From stdin, as a pipe from another machine would send it.
    const piped = await mnemo(['import', '-', '--json'], envTo, exported.stdout)
    const answer = JSON.parse(piped.stdout.toString()) as { files: { outcome: string }[]; written: number }
    expect(answer.written).toBe(0)
    expect(answer.files.length).toBeGreaterThan(0)
    expect(answer.files.every((f) => f.outcome === 'unchanged')).toBe(true)
  })

  it('says why an import is refused, and exits 1', async () => {
    fs.writeFileSync(backup, 'not a tar archive at all')
    const refused = await mnemo(['import', backup], envTo)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/^mnemo: ARCHIVE_INVALID: /)
    const missing = await mnemo(['import', path.join(path.dirname(backup), 'nope.tar')], envTo)
    expect(missing).toMatchObject({ code: 1, stderr: expect.stringMatching(/^mnemo: VALIDATION_FAILED: no such file/) })
  })

  it('treats a wrong command line as a usage error: exit 2 with the usage, no call', async () => {
    for (const args of [
      ['import'],
      ['import', 'a.tar', 'b.tar'],
      ['export', '--bogus'],
      ['export', 'x'],
      ['import', 'a.tar', '--nope'],
    ]) {
      const wrong = await mnemo(args, envTo)
      expect(wrong.code, args.join(' ')).toBe(2)
      expect(wrong.stderr, args.join(' ')).toMatch(
        new RegExp(`^mnemo ${args[0]}: [^\\n]+\\n[\\s\\S]*mnemo import <file\\.tar`),
      )
    }
  })
})
