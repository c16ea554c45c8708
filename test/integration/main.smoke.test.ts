import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
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

  it('refuses to listen beyond loopback without a token, naming the token variable and the opt-out', async () => {
    const proc = start({ MNEMO_HOST: '0.0.0.0' }, os.tmpdir())
    expect(await proc.exited).toBe(1)
    expect(proc.err()).toContain('MNEMO_API_TOKEN: needed because MNEMO_HOST=0.0.0.0')
    expect(proc.err()).toContain('MNEMO_ALLOW_NO_TOKEN=true')
  })

  it('warns about unknown MNEMO_* variables by name (never their value) and about no token when allowed', async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-main-')))
    try {
      const proc = start(
        { MNEMO_HOST: '0.0.0.0', MNEMO_ALLOW_NO_TOKEN: 'true', MNEMO_API_TOKN: 'typo-secret-0123456789' },
        dir,
      )
      await proc.url()
      const warnings = proc
        .out()
        .split('\n')
        .filter((line) => line.includes('"level":40'))
        .map((line) => (JSON.parse(line) as { msg: string }).msg)
      expect(warnings).toContain('unknown setting MNEMO_API_TOKN is ignored: did you mean MNEMO_API_TOKEN?')
      expect(warnings.filter((w) => w.startsWith('unknown setting'))).toHaveLength(1)
      expect(warnings.some((w) => w.startsWith('listening beyond loopback without a token'))).toBe(true)
      expect(proc.out()).not.toContain('typo-secret')
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
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

  it('lets one process use a data dir: a second exits naming the holder; a SIGKILLed holder lets go', async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-main-')))
    try {
      const holder = start({}, dir)
      await holder.ready()
      const second = start({}, dir)
      expect(await second.exited).toBe(1)
      expect(second.err()).toContain(`MNEMO_DATA_DIR: ${path.join(dir, '.mnemo')} is in use by another mnemo process`)
      expect(second.err()).toContain(`(pid ${holder.child.pid} on host ${os.hostname()}, since 20`)
      // The holder is untouched, and no cleanup is needed after it is killed.
      expect((await fetch(`${await holder.url()}/ready`)).status).toBe(200)
      holder.kill('SIGKILL')
      await holder.exited
      const third = start({}, dir)
      expect((await fetch(`${await third.ready()}/health`)).status).toBe(200)
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

/** A `node` older than 22 on this machine (PATH, /usr/bin, /usr/local/bin), if there is one. */
function oldNode(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/bin', '/usr/local/bin']
  for (const dir of dirs) {
    const bin = path.join(dir, 'node')
    if (!dir || !fs.existsSync(bin)) continue
    const version = spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim()
    if (Number(/^v(\d+)\./.exec(version)?.[1]) < 22) return bin
  }
  return undefined
}

const OLD_NODE = oldNode()
const TSX_LOADER = pathToFileURL(path.resolve(import.meta.dirname, '../../node_modules/tsx/dist/loader.mjs')).href

describe.skipIf(OLD_NODE === undefined)('on Node.js older than 22', () => {
  it.each([['src/main.ts'], ['src/cli.ts']])(
    '%s says which Node it needs in one line and exits 1, before better-sqlite3 loads',
    (entry) => {
      const node = OLD_NODE as string
      const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim()
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-old-node-'))
      try {
        const out = spawnSync(node, ['--import', TSX_LOADER, path.resolve(import.meta.dirname, '../..', entry)], {
          cwd: dir,
          env: { PATH: process.env.PATH ?? '', MNEMO_PORT: '0' },
          encoding: 'utf8',
          timeout: 30_000,
        })
        expect(out.signal).toBeNull()
        expect(out.status).toBe(1)
        expect(out.stderr).toBe(`mnemo needs Node.js 22 or newer; this is ${version}\n`)
        // Nothing was started: no index was created.
        expect(fs.existsSync(path.join(dir, '.mnemo'))).toBe(false)
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
      }
    },
  )
})
