/**
 * Files and folders the service may not read: they are skipped (counted in GET /index and
 * logged), the rest is indexed and served, the service gets ready, and requests for them
 * answer 403 PERMISSION_DENIED, not 500. Run as root, the test starts the service as an
 * unprivileged user (root reads everything).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startService, type ServiceProcess } from '../helpers/service-process.js'

const NOBODY = { uid: 65534, gid: 65534 }
const asRoot = process.getuid?.() === 0

const services: ServiceProcess[] = []
const dirs: string[] = []
afterEach(() => {
  for (const s of services.splice(0)) s.kill('SIGKILL')
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

/** Hands every file and folder under `dir` to the service's user (when the test runs as root). */
function giveAway(dir: string): void {
  if (!asRoot) return
  fs.chownSync(dir, NOBODY.uid, NOBODY.gid)
  for (const entry of fs.readdirSync(dir, { recursive: true })) {
    fs.chownSync(path.join(dir, String(entry)), NOBODY.uid, NOBODY.gid)
  }
}

describe('files the service may not read', () => {
  it('are skipped and counted, the rest indexed and served, and requests for them are 403', async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-perm-')))
    dirs.push(dir)
    const ws = path.join(dir, 'workspace')
    fs.mkdirSync(path.join(ws, 'memory', 'private'), { recursive: true })
    fs.writeFileSync(path.join(ws, 'MEMORY.md'), '# Facts\nThe heron nests by the mill pond.\n')
    fs.writeFileSync(path.join(ws, 'memory', 'locked.md'), '# Locked\nThe otter hides here.\n')
    fs.writeFileSync(path.join(ws, 'memory', 'private', 'a.md'), '# Private\nThe badger sleeps here.\n')
    giveAway(dir)
    // Taken back from the service's user: a file it may not read, a folder it may not open.
    if (asRoot) fs.chownSync(path.join(ws, 'memory', 'locked.md'), 0, 0)
    if (asRoot) fs.chownSync(path.join(ws, 'memory', 'private'), 0, 0)
    fs.chmodSync(path.join(ws, 'memory', 'locked.md'), 0o000)
    fs.chmodSync(path.join(ws, 'memory', 'private'), 0o000)

    const proc = startService({ MNEMO_WATCH: 'true' }, dir, asRoot ? NOBODY : undefined)
    services.push(proc)
    const url = await proc.ready()
    const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> })

    const status = await json(await fetch(`${url}/index`))
    expect(status.body).toMatchObject({ files: 1, lastSync: { ok: true, unreadable: 2 } })
    const errors = (status.body.lastSync as { fileErrors: { path: string }[] }).fileErrors.map((e) => e.path)
    expect(errors.sort()).toEqual(['memory/locked.md', 'memory/private'])

    const search = await fetch(`${url}/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'heron mill pond' }),
    })
    expect(((await search.json()) as { results: { path: string }[] }).results[0]?.path).toBe('MEMORY.md')

    const read = await json(await fetch(`${url}/files/memory/locked.md`))
    expect(read).toMatchObject({ status: 403, body: { code: 'PERMISSION_DENIED' } })
    expect(JSON.stringify(read.body)).not.toContain(dir)
    const append = await json(
      await fetch(`${url}/files/memory/locked.md`, {
        method: 'POST',
        headers: { 'content-type': 'text/markdown' },
        body: '- more',
      }),
    )
    expect(append).toMatchObject({ status: 403, body: { code: 'PERMISSION_DENIED' } })
    const inPrivate = await json(await fetch(`${url}/files/memory/private/a.md`))
    expect(inPrivate).toMatchObject({ status: 403, body: { code: 'PERMISSION_DENIED' } })
  })
})

describe('a workspace the service may not write', () => {
  it.skipIf(!asRoot)('is a warning at start and /ready checks.workspace, not a silent 403 on every write', async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-perm-')))
    dirs.push(dir)
    const ws = path.join(dir, 'workspace')
    fs.mkdirSync(path.join(ws, 'memory'), { recursive: true })
    fs.writeFileSync(path.join(ws, 'MEMORY.md'), '# Facts\nThe heron nests by the mill pond.\n')
    // The data dir is the service's; the workspace stays root's (a root-owned volume).
    fs.chmodSync(dir, 0o755)
    fs.mkdirSync(path.join(dir, 'data'))
    fs.chownSync(path.join(dir, 'data'), NOBODY.uid, NOBODY.gid)

    const proc = startService({ MNEMO_WORKSPACE: ws, MNEMO_DATA_DIR: path.join(dir, 'data') }, dir, NOBODY)
    services.push(proc)
    const url = await proc.ready()
    const ready = await fetch(`${url}/ready`)
    expect(ready.status).toBe(200)
    expect(await ready.json()).toMatchObject({ ready: true, checks: { workspace: 'read-only' } })
    const warning = proc
      .out()
      .split('\n')
      .find((line) => line.includes('may not write the workspace'))
    expect(JSON.parse(warning ?? '{}')).toMatchObject({ level: 40, workspace: ws, uid: NOBODY.uid })
    const search = await fetch(`${url}/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'heron mill pond' }),
    })
    expect(((await search.json()) as { results: { path: string }[] }).results[0]?.path).toBe('MEMORY.md')
    const write = await fetch(`${url}/files/memory/2026-03-01.md`, {
      method: 'POST',
      headers: { 'content-type': 'text/markdown' },
      body: '- a note',
    })
    expect(write.status).toBe(403)
  })
})
