import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { waitFor } from '../helpers/wait-for.js'

const MAIN = path.resolve(import.meta.dirname, '../../src/main.ts')
/** tsx's loader by absolute URL: the child runs in a temp dir where `--import tsx` would not resolve. */
const TSX_LOADER = pathToFileURL(path.resolve(import.meta.dirname, '../../node_modules/tsx/dist/loader.mjs')).href
const children: ChildProcess[] = []
afterEach(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL')
})

function start(env: Record<string, string>, cwd: string) {
  const child = spawn(process.execPath, ['--import', TSX_LOADER, MAIN], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { child, exited, out: () => stdout, err: () => stderr }
}

describe('main (the process entry)', () => {
  it('refuses to start on a bad setting and names the variable', async () => {
    const proc = start({ MNEMO_PORT: 'eighty', MNEMO_INDEX_ON_START: 'maybe' }, os.tmpdir())
    expect(await proc.exited).toBe(1)
    expect(proc.err()).toContain('MNEMO_PORT')
    expect(proc.err()).toContain('MNEMO_INDEX_ON_START')
  })

  it('creates a missing workspace with an example MEMORY.md, serves it, and stops on SIGTERM', async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-main-')))
    try {
      const proc = start({ MNEMO_PORT: '0', MNEMO_LOG_LEVEL: 'info' }, dir)
      const url = await waitFor(() => /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(proc.out())?.[1], 20_000)
      expect(fs.existsSync(path.join(dir, 'workspace', 'MEMORY.md'))).toBe(true)
      expect(fs.existsSync(path.join(dir, '.mnemo', 'index.sqlite'))).toBe(true)
      await waitFor(async () => ((await fetch(`${url}/ready`)).status === 200 ? true : undefined))
      const res = await fetch(`${url}/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'qwen-max 模型升级' }),
      })
      const body = (await res.json()) as { results: { path: string }[] }
      expect(body.results[0]?.path).toBe('MEMORY.md')
      proc.child.kill('SIGTERM')
      expect(await proc.exited).toBe(0)
      expect(proc.out()).toContain('shutting down')
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
