import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startService, type ServiceProcess } from '../helpers/service-process.js'
import { waitFor } from '../helpers/wait-for.js'

const services: ServiceProcess[] = []
afterEach(() => {
  for (const s of services.splice(0)) s.kill('SIGKILL')
})

function start(env: Record<string, string>, cwd: string) {
  const proc = startService(env, cwd)
  services.push(proc)
  return proc
}

describe('main (the process entry)', () => {
  it('refuses to start on a bad setting and names the variable', async () => {
    const proc = start({ MNEMO_PORT: 'eighty', MNEMO_INDEX_ON_START: 'maybe' }, os.tmpdir())
    expect(await proc.exited).toBe(1)
    expect(proc.err()).toContain('MNEMO_PORT')
    expect(proc.err()).toContain('MNEMO_INDEX_ON_START')
  })

  it('refuses to start on a data folder it cannot use, naming the variable and the path', async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-main-')))
    try {
      fs.writeFileSync(path.join(dir, 'a-file'), '')
      const dataDir = path.join(dir, 'a-file', 'index')
      const proc = start({ MNEMO_DATA_DIR: dataDir }, dir)
      expect(await proc.exited).toBe(1)
      expect(proc.err()).toContain(`MNEMO_DATA_DIR: ${dataDir} is not a writable folder (ENOTDIR`)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it('creates a missing workspace with an example MEMORY.md, serves it, and stops on SIGTERM', async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-main-')))
    try {
      const proc = start({}, dir)
      const url = await proc.url()
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
