/**
 * Writes on a failing disk and other file-system faults: a failed write leaves the file
 * byte-for-byte as it was and answers a clear 4xx/5xx code; nothing blocks, nothing is a
 * bare 500. The full disk is a write port injected through the container.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { nodeWritePort, type WritePort } from '../../src/files/file-writer.js'
import { useTestApp, type TestApp } from '../helpers/build-test-app.js'

/** A disk with `freeBytes` left: writes past it write what fits, then fail with ENOSPC. */
function disk(freeBytes: number) {
  let free = freeBytes
  let full = true
  const port: WritePort = {
    async write(handle, bytes, offset, length) {
      if (!full) return nodeWritePort.write(handle, bytes, offset, length)
      if (free <= 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
      const n = Math.min(length, free)
      free -= n
      return nodeWritePort.write(handle, bytes, offset, n)
    },
    sync: (handle) => nodeWritePort.sync(handle),
    setTimes: (handle, seconds) => nodeWritePort.setTimes(handle, seconds),
    syncFolder: (folder) => nodeWritePort.syncFolder(folder),
  }
  return { port, clear: () => (full = false) }
}

async function start(writePort?: WritePort) {
  const t = await useTestApp({ corpus: true, ...(writePort && { overrides: { writePort } }) })
  return t
}

const post = (t: TestApp, url: string, payload: unknown, method: 'POST' | 'PUT' = 'POST') =>
  t.app.inject({ method, url, payload: payload as object })

describe('a full disk', () => {
  it('fails a 50 KB append with 507 STORAGE_FULL and leaves the file byte-identical', async () => {
    const full = disk(20_000)
    const t = await start(full.port)
    const before = fs.readFileSync(t.ws.abs('memory/2026-02-16.md'))
    const line = '- a long note that will not fit on the disk\n'
    const res = await post(t, '/files/memory/2026-02-16.md', { content: line.repeat(1200) })
    expect(res.statusCode).toBe(507)
    expect(res.json()).toMatchObject({ code: 'STORAGE_FULL' })
    expect(res.body).not.toContain(t.ws.root)
    expect(fs.readFileSync(t.ws.abs('memory/2026-02-16.md')).equals(before)).toBe(true)
  })

  it('fails an append that would create a file, and leaves no file', async () => {
    const t = await start(disk(10).port)
    const res = await post(t, '/files/memory/new.md', { content: 'x'.repeat(100) })
    expect(res.statusCode).toBe(507)
    expect(fs.existsSync(t.ws.abs('memory/new.md'))).toBe(false)
  })

  it('fails a flush without leaving its marker, so the retry saves every note', async () => {
    const full = disk(2_000)
    const t = await start(full.port)
    const entries = Array.from({ length: 200 }, (_, i) => `- note number ${i} of the compaction`)
    const body = { entries, date: '2026-03-01', flushId: 'sess-1:7' }
    const failed = await post(t, '/flush', body)
    expect(failed.statusCode).toBe(507)
    expect(fs.existsSync(t.ws.abs('memory/2026-03-01.md'))).toBe(false)
    full.clear()
    const retried = await post(t, '/flush', body)
    expect(retried.json()).toMatchObject({ replayed: false, startLine: 1, endLine: 202 })
    const day = t.ws.read('memory/2026-03-01.md')
    expect(entries.every((e) => day.includes(`${e}\n`))).toBe(true)
    expect((await post(t, '/flush', body)).json()).toMatchObject({ replayed: true })
  })

  it('fails a replace without touching the file or leaving a temp file', async () => {
    const t = await start(disk(1_000).port)
    const before = t.ws.read('MEMORY.md')
    const res = await post(t, '/files/MEMORY.md', { content: 'y'.repeat(5_000) }, 'PUT')
    expect(res.statusCode).toBe(507)
    expect(t.ws.read('MEMORY.md')).toBe(before)
    expect(fs.readdirSync(t.ws.root).filter((f) => f.includes('mnemo-tmp'))).toEqual([])
  })

  it('leaves nothing in the index of an append or a flush that a sync read half written before it failed', async () => {
    let t: TestApp | null = null
    let failing = false
    // Writes half of what it is given; a sync (a watcher's) reads the file; then the disk is full.
    const port: WritePort = {
      async write(handle, bytes, offset, length) {
        if (!failing) return nodeWritePort.write(handle, bytes, offset, length)
        await nodeWritePort.write(handle, bytes, offset, Math.floor(length / 2))
        await t?.sync()
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
      },
      sync: (handle) => nodeWritePort.sync(handle),
      setTimes: (handle, seconds) => nodeWritePort.setTimes(handle, seconds),
      syncFolder: (folder) => nodeWritePort.syncFolder(folder),
    }
    t = await start(port)
    const rel = 'memory/2026-02-16.md'
    const before = t.ws.read(rel)
    failing = true
    const append = await post(t, `/files/${rel}`, { content: '- quokka noted\n- quokka noted again\n' })
    const flush = await post(t, '/flush', { content: '- wombat noted\n- wombat noted again', date: '2026-02-16' })
    failing = false
    expect([append.statusCode, flush.statusCode]).toEqual([507, 507])
    expect(t.ws.read(rel)).toBe(before)
    for (const query of ['quokka', 'wombat']) expect((await t.search({ query, minScore: 0 })).body.results).toEqual([])
  })

  it('indexes a file replaced or deleted before its folder’s fsync failed as it is on disk', async () => {
    let failFolderSync = false
    const port: WritePort = {
      ...nodeWritePort,
      syncFolder: (folder) =>
        failFolderSync
          ? Promise.reject(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }))
          : nodeWritePort.syncFolder(folder),
    }
    const t = await start(port)
    await post(t, '/files/memory/ferry.md', { content: '- the ferry leaves at seven\n' }, 'PUT')
    failFolderSync = true
    // The rename is done when the folder's fsync fails: the client hears of the failure, and
    // searches find what the file now holds, not what it held.
    const replaced = await post(t, '/files/memory/ferry.md', { content: '- the ferry leaves at nine\n' }, 'PUT')
    expect(replaced.statusCode).toBe(500)
    expect(t.ws.read('memory/ferry.md')).toBe('- the ferry leaves at nine\n')
    const found = await t.search({ query: 'ferry leaves', minScore: 0 })
    expect(found.body.results.map((r) => r.snippet)).toEqual([expect.stringContaining('nine')])
    const deleted = await t.app.inject({ method: 'DELETE', url: '/files/memory/ferry.md' })
    expect(deleted.statusCode).toBe(500)
    expect(fs.existsSync(t.ws.abs('memory/ferry.md'))).toBe(false)
    expect((await t.search({ query: 'ferry leaves', minScore: 0 })).body.results).toEqual([])
  })

  it('ignores a marker whose entry was cut short on disk (a crash mid-write)', async () => {
    const t = await start()
    t.ws.write('memory/2026-03-02.md', '## 10:00:00\n<!-- mnemo:flush id=s:1 lines=2 -->\n- first note\n- sec')
    await t.sync()
    const res = await post(t, '/flush', {
      entries: ['- first note', '- second note'],
      date: '2026-03-02',
      flushId: 's:1',
    })
    expect(res.json()).toMatchObject({ replayed: false })
    expect(t.ws.read('memory/2026-03-02.md')).toContain('- second note\n')
  })
})

describe('special files and odd names', () => {
  it('answers a FIFO under memory/ with 404 at once, without blocking other requests', async () => {
    const t = await start()
    const made = spawnSync('mkfifo', [t.ws.abs('memory/pipe.md')])
    expect(made.status).toBe(0)
    const reads = await Promise.all(
      Array.from({ length: 6 }, () => t.app.inject({ method: 'GET', url: '/files/memory/pipe.md' })),
    )
    for (const res of reads) expect(res.json()).toMatchObject({ code: 'FILE_NOT_FOUND' })
    const append = await post(t, '/files/memory/pipe.md', { content: 'x' })
    expect(append.json()).toMatchObject({ code: 'PATH_INVALID' })
    await t.sync()
    expect((await t.app.inject({ method: 'GET', url: '/files/memory/2026-02-16.md' })).statusCode).toBe(200)
  })

  it('answers names too long for the file system with a 4xx on every file route', async () => {
    const t = await start()
    // 300 bytes: no file system takes it. 240: it fits, but its temp file would not.
    for (const [name, readCode, writeCode] of [
      ['a'.repeat(300), 'PATH_INVALID', 'PATH_INVALID'],
      ['b'.repeat(237), 'FILE_NOT_FOUND', 'PATH_INVALID'],
    ] as const) {
      for (const method of ['GET', 'PUT', 'POST', 'DELETE'] as const) {
        const write = method === 'PUT' || method === 'POST'
        const res = await t.app.inject({
          method,
          url: `/files/memory/${name}.md`,
          ...(write ? { payload: { content: 'x' } } : {}),
        })
        const expected = write ? writeCode : method === 'DELETE' ? writeCode : readCode
        expect(res.json(), `${method} ${name.length}`).toMatchObject({ code: expected })
      }
    }
  })

  it('refuses NUL characters in anything written', async () => {
    const t = await start()
    for (const [url, payload] of [
      ['/files/memory/n.md', { content: 'a\u0000b' }],
      ['/flush', { content: '- a\u0000b' }],
    ] as const) {
      const res = await post(t, url, payload)
      expect(res.json()).toMatchObject({ code: 'VALIDATION_FAILED' })
    }
    expect(fs.existsSync(t.ws.abs('memory/n.md'))).toBe(false)
  })
})

describe('hard links', () => {
  it('are neither read, nor indexed, nor written through; deleting one removes only the link', async () => {
    const t = await start()
    const outside = path.join(t.ws.base, 'outside.md')
    fs.writeFileSync(outside, '# Secret\nThe root password is HUNTER2-OUTSIDE.\n')
    fs.linkSync(outside, t.ws.abs('memory/linked.md'))
    fs.linkSync(outside, t.ws.abs('memory/2026-03-03.md'))
    await t.sync()
    expect((await t.search({ query: 'HUNTER2-OUTSIDE root password' })).body.results).toEqual([])
    const read = await t.app.inject({ method: 'GET', url: '/files/memory/linked.md' })
    expect(read.json()).toMatchObject({ code: 'PATH_INVALID' })
    expect(read.body).not.toContain('HUNTER2')
    for (const [url, payload] of [
      ['/files/memory/linked.md', { content: '- planted' }],
      ['/flush', { content: '- planted', date: '2026-03-03' }],
    ] as const) {
      expect((await post(t, url, payload)).json()).toMatchObject({ code: 'PATH_INVALID' })
    }
    expect(fs.readFileSync(outside, 'utf8')).not.toContain('planted')
    expect((await t.app.inject({ method: 'DELETE', url: '/files/memory/linked.md' })).statusCode).toBe(200)
    expect(fs.existsSync(outside)).toBe(true)
  })
})
