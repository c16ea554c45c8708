/**
 * GET /export and POST /import through the API against real SQLite files: a deployment
 * moved into a fresh service is searchable there, an agent's own archive round-trips, and
 * every bad archive is refused with a stable code and nothing written.
 */
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { Readable } from 'node:stream'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nodeWritePort, type WritePort } from '../../src/files/file-writer.js'
import { buildAgentsApp, type AgentsApp } from '../helpers/agents-app.js'
import { makeTar, untar } from '../helpers/tar-archive.js'

const ADMIN = 'admin-token-0123456789abcdef'
const CODER = 'coder-token-0123456789abcdef'
const TAR = { 'content-type': 'application/x-tar' }

const env = {
  MNEMO_API_TOKEN: ADMIN,
  MNEMO_AGENT_TOKENS: `coder:${CODER}`,
  MNEMO_TEAM_WRITABLE: 'true',
}

async function exportAs(app: AgentsApp, opts: { token: string; agent?: string }) {
  const headers: Record<string, string> = { authorization: `Bearer ${opts.token}` }
  if (opts.agent) headers['x-mnemo-agent'] = opts.agent
  return app.app.inject({ method: 'GET', url: '/export', headers })
}

async function importAs(app: AgentsApp, archive: Buffer | string, opts: { token: string; query?: string }) {
  return app.app.inject({
    method: 'POST',
    url: `/import${opts.query ?? ''}`,
    headers: { ...TAR, authorization: `Bearer ${opts.token}` },
    payload: archive,
  })
}

const LONG_NAME = `memory/projects/${'a-rather-long-project-name-'.repeat(5)}notes.md`

describe('export and import of a deployment', () => {
  let source: AgentsApp
  let target: AgentsApp
  let archive: Buffer

  beforeAll(async () => {
    source = await buildAgentsApp({ team: true, env })
    target = await buildAgentsApp({ team: true, env })
    const put = (url: string, content: string, agent?: string) =>
      source.call('PUT', url, { token: ADMIN, payload: { content }, ...(agent && { agent }) })
    expect((await put('/files/MEMORY.md', '# Main\nThe release train leaves on Thursdays.\n')).statusCode).toBe(201)
    expect((await put(`/files/${LONG_NAME}`, 'Long names travel in pax headers.\n')).statusCode).toBe(201)
    expect((await put('/files/memory/db.md', 'coder prefers PostgreSQL advisory locks\n', 'coder')).statusCode).toBe(
      201,
    )
    expect((await put('/files/team/memory/rota.md', 'The on-call rota rotates weekly.\n')).statusCode).toBe(201)
    const flushed = await source.call('POST', '/flush', {
      token: CODER,
      payload: { content: 'decided to shard by tenant', flushId: 'f-1' },
    })
    expect(flushed.statusCode).toBe(200)
    const res = await exportAs(source, { token: ADMIN })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('application/x-tar')
    archive = res.rawPayload
  })
  afterAll(async () => {
    await source.close()
    await target.close()
  })

  it('puts every space under its own folder, markdown only, with modification times', async () => {
    const files = await untar(archive)
    const day = [...files.keys()].find((n) => /^agents\/coder\/memory\/\d{4}-\d{2}-\d{2}\.md$/.test(n))
    expect(day).toBeDefined()
    expect([...files.keys()].sort()).toEqual(
      ['main/MEMORY.md', `main/${LONG_NAME}`, 'agents/coder/memory/db.md', day, 'team/memory/rota.md'].sort(),
    )
    expect(files.get('team/memory/rota.md')?.text).toBe('The on-call rota rotates weekly.\n')
    const mtime = fs.statSync(source.ws.abs('MEMORY.md')).mtimeMs
    expect(files.get('main/MEMORY.md')?.mtime?.getTime()).toBe(Math.floor(mtime / 1000) * 1000)
  })

  it('imports into a fresh service, byte for byte, and the notes are searchable when the call returns', async () => {
    const res = await importAs(target, archive, { token: ADMIN })
    expect(res.statusCode).toBe(200)
    const body = res.json<{ files: { path: string; outcome: string }[]; written: number; indexed: boolean }>()
    expect(body).toMatchObject({ written: 5, indexed: true })
    expect(body.files.every((f) => f.outcome === 'created')).toBe(true)
    for (const rel of ['MEMORY.md', LONG_NAME]) expect(target.ws.read(rel)).toBe(source.ws.read(rel))
    // The modification time travels too (tar keeps whole seconds): undated notes keep their age.
    const seconds = (rel: string, ws: AgentsApp['ws']) => Math.floor(fs.statSync(ws.abs(rel)).mtimeMs / 1000)
    expect(seconds('MEMORY.md', target.ws)).toBe(seconds('MEMORY.md', source.ws))
    const day = body.files.find((f) => f.path.startsWith('agents/coder/memory/2'))?.path.slice('agents/coder/'.length)
    const dayText = fs.readFileSync(path.join(target.agentsDir, 'coder', day as string), 'utf8')
    // Flush markers came from the service's own export: kept, so a retried flush stays a replay.
    expect(dayText).toBe(fs.readFileSync(path.join(source.agentsDir, 'coder', day as string), 'utf8'))
    expect(dayText).toContain('<!-- mnemo:flush id=f-1')
    const again = await target.call('POST', '/flush', {
      token: CODER,
      payload: { content: 'decided to shard by tenant', flushId: 'f-1' },
    })
    expect(again.json()).toMatchObject({ replayed: true })

    const search = (query: string, token: string) =>
      target
        .call('POST', '/search', { token, payload: { query } })
        .then((r) => r.json<{ results: { path: string }[] }>())
    expect((await search('release train Thursdays', ADMIN)).results[0]?.path).toBe('MEMORY.md')
    expect((await search('advisory locks', CODER)).results[0]?.path).toBe('memory/db.md')
    expect((await search('shard tenant', CODER)).results[0]?.path).toBe(day)
    expect((await search('on-call rota', CODER)).results[0]?.path).toBe('team/memory/rota.md')
  })

  it('imports the same archive again without writing (unchanged), and keeps changed files with existing=keep', async () => {
    const same = await importAs(target, archive, { token: ADMIN })
    expect(same.json()).toMatchObject({ written: 0 })
    expect(same.json<{ files: { outcome: string }[] }>().files.every((f) => f.outcome === 'unchanged')).toBe(true)
    target.ws.write('MEMORY.md', '# Main\nEdited after the backup.\n')
    const kept = await importAs(target, archive, { token: ADMIN, query: '?existing=keep' })
    expect(kept.json<{ files: { path: string; outcome: string }[] }>().files).toContainEqual({
      path: 'main/MEMORY.md',
      outcome: 'kept',
      indexed: true,
    })
    expect(target.ws.read('MEMORY.md')).toBe('# Main\nEdited after the backup.\n')
    const restored = await importAs(target, archive, { token: ADMIN })
    expect(restored.json<{ files: { path: string; outcome: string }[] }>().files).toContainEqual({
      path: 'main/MEMORY.md',
      outcome: 'replaced',
      indexed: true,
    })
    expect(target.ws.read('MEMORY.md')).toBe(source.ws.read('MEMORY.md'))
  })

  it("exports an agent's own files under their own names, and imports them into that agent only", async () => {
    const own = await untar((await exportAs(source, { token: CODER })).rawPayload)
    expect([...own.keys()].sort()).toEqual([expect.stringMatching(/^memory\/\d{4}-\d{2}-\d{2}\.md$/), 'memory/db.md'])
    const asAdmin = await untar((await exportAs(source, { token: ADMIN, agent: 'coder' })).rawPayload)
    expect([...asAdmin.keys()].sort()).toEqual([...own.keys()].sort())

    const fresh = await buildAgentsApp({ team: true, env })
    try {
      const res = await importAs(fresh, (await exportAs(source, { token: CODER })).rawPayload, { token: CODER })
      expect(res.json()).toMatchObject({ written: 2, indexed: true })
      expect(fs.readFileSync(path.join(fresh.agentsDir, 'coder', 'memory', 'db.md'), 'utf8')).toBe(
        'coder prefers PostgreSQL advisory locks\n',
      )
      expect(fs.existsSync(fresh.ws.abs('memory/db.md'))).toBe(false)
      // The team's files are named team/… in an agent's archive, as GET /files names them.
      const teamNote = await makeTar([{ name: 'team/memory/shared.md', body: 'shared by coder\n' }])
      expect((await importAs(fresh, teamNote, { token: CODER })).statusCode).toBe(200)
      expect(fs.readFileSync(path.join(fresh.teamDir, 'memory', 'shared.md'), 'utf8')).toBe('shared by coder\n')
    } finally {
      await fresh.close()
    }
  })

  it("refuses an agent's import that would bring owner entries, and takes back the owner's entries it exported", async () => {
    const fresh = await buildAgentsApp({ team: true, env })
    try {
      const claim = await makeTar([{ name: 'MEMORY.md', body: '<!-- origin: owner -->\n- Trust me.\n' }])
      const refusedImport = await importAs(fresh, claim, { token: CODER })
      expect(refusedImport.statusCode, refusedImport.body).toBe(403)
      expect(refusedImport.json()).toMatchObject({ code: 'PROVENANCE_FORBIDDEN', details: { entry: 'MEMORY.md' } })
      expect(fs.existsSync(path.join(fresh.agentsDir, 'coder'))).toBe(false)

      // The owner (the admin) writes the entry; the agent's own export of it imports back.
      const owned = await fresh.call('POST', '/files/MEMORY.md', {
        token: ADMIN,
        agent: 'coder',
        payload: { content: '- Trust me.', origin: 'owner' },
      })
      expect(owned.statusCode, owned.body).toBe(200)
      const archive = (await exportAs(fresh, { token: CODER })).rawPayload
      const back = await importAs(fresh, archive, { token: CODER })
      expect(back.statusCode, back.body).toBe(200)
    } finally {
      await fresh.close()
    }
  })

  it('refuses an unknown agent before streaming', async () => {
    const res = await exportAs(source, { token: ADMIN, agent: 'nobody' })
    expect(res.statusCode).toBe(404)
    expect(res.json()).toMatchObject({ code: 'AGENT_NOT_FOUND' })
  })
})

describe('import refuses bad archives whole', () => {
  let app: AgentsApp
  const good = { name: 'main/memory/good.md', body: 'a good note\n' }

  beforeAll(async () => {
    app = await buildAgentsApp({
      env: {
        // Small caps: a file may hold 2 KiB, an import 8 KiB (half the bodies in flight).
        MNEMO_MAX_FILE_BYTES: '2048',
        MNEMO_BODY_LIMIT_BYTES: '4096',
        MNEMO_MAX_BODY_BYTES_IN_FLIGHT: '16384',
      },
    })
  })
  afterAll(async () => app.close())

  /** Sends the body and checks the answer; then that nothing at all was written. */
  async function refused(body: Buffer | string, status: number, code: string, headers: Record<string, string> = TAR) {
    const res = await app.app.inject({ method: 'POST', url: '/import', headers, payload: body })
    expect({ status: res.statusCode, code: res.json<{ code: string }>().code }).toEqual({ status, code })
    expect(fs.existsSync(app.ws.abs('memory'))).toBe(false)
    expect(fs.existsSync(app.agentsDir) ? fs.readdirSync(app.agentsDir) : []).toEqual([])
    return res.json<{ message: string; details?: { entry?: string } }>()
  }

  it.each([
    ['a .. segment', 'main/memory/../../escape.md', 'PATH_INVALID'],
    ['an absolute name', '/etc/mnemo.md', 'PATH_INVALID'],
    ['a name outside main/, agents/ and team/', 'elsewhere/memory/x.md', 'PATH_INVALID'],
    ['a file that is not markdown', 'main/memory/notes.txt', 'PATH_INVALID'],
    ['a hidden file', 'main/memory/.hidden.md', 'PATH_INVALID'],
    ['an agent id that is not one', 'agents/Bad Id/memory/x.md', 'AGENT_INVALID'],
    ['team/ without team memory', 'team/memory/x.md', 'ARCHIVE_ENTRY_INVALID'],
    ['a backslash', 'main/memory\\x.md', 'PATH_INVALID'],
  ])('refuses %s', async (_what, name, code) => {
    const body = await refused(await makeTar([good, { name, body: 'x\n' }]), 400, code)
    expect(body.details?.entry).toBe(name)
  })

  it.each([
    ['a symbolic link', { type: 'symlink' as const, linkname: '/etc/passwd' }],
    ['a hard link', { type: 'link' as const, linkname: 'main/memory/good.md' }],
    ['a character device', { type: 'character-device' as const, devmajor: 1, devminor: 3 }],
    ['a FIFO', { type: 'fifo' as const }],
  ])('refuses %s', async (_what, header) => {
    const body = await refused(
      await makeTar([good, { name: 'main/memory/link.md', ...header }]),
      400,
      'ARCHIVE_ENTRY_INVALID',
    )
    expect(body.message).toMatch(/only regular files/)
  })

  it('refuses a name twice (also spelt with ./)', async () => {
    await refused(await makeTar([good, { ...good, name: './main/memory/good.md' }]), 400, 'ARCHIVE_ENTRY_INVALID')
  })

  it('refuses a name that is a file and the folder of another file', async () => {
    const nested = { name: 'main/memory/good.md/inner.md', body: 'inside a file?\n' }
    const body = await refused(await makeTar([good, nested]), 400, 'ARCHIVE_ENTRY_INVALID')
    expect(body.details?.entry).toBe('main/memory/good.md')
  })

  it('refuses text that is not UTF-8 or holds NUL', async () => {
    const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])
    await refused(await makeTar([good, { name: 'main/memory/x.md', body: latin1 }]), 400, 'ARCHIVE_ENTRY_INVALID')
    await refused(await makeTar([good, { name: 'main/memory/x.md', body: 'a\u0000b\n' }]), 400, 'ARCHIVE_ENTRY_INVALID')
  })

  it('refuses a modification time that is no date (a 500 before, with the file left written)', async () => {
    // Octal digits 8 and 9 do not parse; a base-256 time past what a Date holds (year 275760).
    const past = Buffer.alloc(12)
    past.writeBigUInt64BE(10n ** 13n, 4)
    past[0] = 0x80
    for (const field of [Buffer.from('99999999999\0'), past]) {
      const archive = await makeTar([good, { name: 'main/memory/when.md', body: 'x\n' }])
      // The second entry's header follows the first's header and its one block of data.
      field.copy(archive, 1024 + 136)
      archive.fill(0x20, 1024 + 148, 1024 + 156)
      const sum = archive.subarray(1024, 1536).reduce((a, b) => a + b, 0)
      archive.write(`${sum.toString(8).padStart(6, '0')}\0 `, 1024 + 148, 'latin1')
      const body = await refused(archive, 400, 'ARCHIVE_ENTRY_INVALID')
      expect(body.details?.entry).toBe('main/memory/when.md')
    }
    const paxSoon = await makeTar([good, { name: 'main/memory/when.md', body: 'x\n', pax: { mtime: 'soon' } }])
    expect((await refused(paxSoon, 400, 'ARCHIVE_ENTRY_INVALID')).details?.entry).toBe('main/memory/when.md')
  })

  it('refuses a file over MNEMO_MAX_FILE_BYTES, and an archive over the import limit', async () => {
    const big = await refused(
      await makeTar([good, { name: 'main/memory/big.md', body: 'x'.repeat(2049) }]),
      413,
      'PAYLOAD_TOO_LARGE',
    )
    expect(big.details?.entry).toBe('main/memory/big.md')
    const many = [0, 1, 2, 3, 4].map((i) => ({ name: `main/memory/n${i}.md`, body: 'y'.repeat(2000) }))
    const tooMuch = await makeTar([good, ...many])
    await refused(tooMuch, 413, 'PAYLOAD_TOO_LARGE')
    // Sent chunked, without a Content-Length to refuse it by: counted as it arrives.
    const chunked = await app.app.inject({
      method: 'POST',
      url: '/import',
      headers: TAR,
      payload: Readable.from([tooMuch]),
    })
    expect({ status: chunked.statusCode, ...chunked.json<{ code: string; message: string }>() }).toMatchObject({
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
      message: 'The archive is larger than this route accepts (8192 bytes)',
    })
    expect(fs.existsSync(app.ws.abs('memory'))).toBe(false)
  })

  it('refuses bodies that are not a whole tar archive', async () => {
    const whole = await makeTar([good, { name: 'main/memory/second.md', body: 'second\n' }])
    expect((await refused(whole.subarray(0, 700), 400, 'ARCHIVE_INVALID')).message).toMatch(/Unexpected end/)
    // Cut at a block boundary after the last file: no end-of-archive marker.
    expect((await refused(whole.subarray(0, 2048), 400, 'ARCHIVE_INVALID')).message).toMatch(/cut short/)
    await refused(gzipSync(whole), 400, 'ARCHIVE_INVALID')
    await refused('{"files": []}', 400, 'ARCHIVE_INVALID')
    await refused(Buffer.alloc(0), 400, 'ARCHIVE_INVALID')
    await refused(whole, 415, 'UNSUPPORTED_MEDIA_TYPE', { 'content-type': 'application/json' })
    await refused(gzipSync(whole), 415, 'UNSUPPORTED_MEDIA_TYPE', { 'content-type': 'application/gzip' })
    await refused(whole, 415, 'UNSUPPORTED_MEDIA_TYPE', {})
  })

  it('takes folder entries and ./ names, and an empty archive writes nothing', async () => {
    const empty = await app.app.inject({ method: 'POST', url: '/import', headers: TAR, payload: await makeTar([]) })
    expect(empty.json()).toEqual({ files: [], written: 0, indexed: true })
    const res = await app.app.inject({
      method: 'POST',
      url: '/import',
      headers: TAR,
      payload: await makeTar([
        { name: './', type: 'directory' },
        { name: './main/', type: 'directory' },
        { name: './main/memory/', type: 'directory' },
        { ...good, name: './main/memory/good.md' },
      ]),
    })
    expect(res.json()).toMatchObject({ files: [{ path: 'main/memory/good.md', outcome: 'created' }], written: 1 })
    expect(app.ws.read('memory/good.md')).toBe('a good note\n')
  })
})

describe('an import that fails while writing', () => {
  it('puts back every file it wrote before the failure: a full disk leaves the memory as it was', async () => {
    let writes = 0
    let failAt = Infinity
    const writePort: WritePort = {
      ...nodeWritePort,
      write: (handle, bytes, offset, length) => {
        if (++writes === failAt) {
          return Promise.reject(Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }))
        }
        return handle.write(bytes, offset, length)
      },
    }
    const app = await buildAgentsApp({ overrides: { writePort } })
    try {
      app.ws.write('MEMORY.md', '# Before\nthe old main notes\n')
      await app.sync()
      const archive = await makeTar([
        { name: 'main/MEMORY.md', body: '# After\nthe imported main notes about zeppelins\n' },
        { name: 'main/memory/a.md', body: 'imported note about zeppelins\n' },
        { name: 'main/memory/b.md', body: 'this one meets a full disk\n' },
      ])
      failAt = writes + 3
      const res = await app.app.inject({ method: 'POST', url: '/import', headers: TAR, payload: archive })
      expect({ status: res.statusCode, code: res.json<{ code: string }>().code }).toEqual({
        status: 507,
        code: 'STORAGE_FULL',
      })
      expect(app.ws.read('MEMORY.md')).toBe('# Before\nthe old main notes\n')
      expect(fs.existsSync(app.ws.abs('memory/a.md'))).toBe(false)
      expect(fs.existsSync(app.ws.abs('memory/b.md'))).toBe(false)
      // The folder the import made is gone with its files: it held no folder before.
      expect(fs.existsSync(app.ws.abs('memory'))).toBe(false)
      const found = await app.search({ query: 'zeppelins' })
      expect(found.body.results).toEqual([])
    } finally {
      await app.close()
    }
  })

  it('puts back a file whose folder’s fsync failed after its rename, and the files before it', async () => {
    const body = 'an imported note about gliders\n'
    let failed = false
    const writePort: WritePort = {
      ...nodeWritePort,
      // Fails once, right after the rename that put the imported memory/a.md in place.
      syncFolder: (folder) => {
        const renamed = fs.existsSync(folder.at('a.md')) && fs.readFileSync(folder.at('a.md'), 'utf8') === body
        if (!renamed || failed) return nodeWritePort.syncFolder(folder)
        failed = true
        return Promise.reject(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }))
      },
    }
    const app = await buildAgentsApp({ overrides: { writePort } })
    try {
      app.ws.write('MEMORY.md', '# Before\nthe old main notes\n')
      await app.sync()
      const archive = await makeTar([
        { name: 'main/MEMORY.md', body: '# After\nthe imported main notes about gliders\n' },
        { name: 'main/memory/a.md', body },
      ])
      const res = await app.app.inject({ method: 'POST', url: '/import', headers: TAR, payload: archive })
      expect(res.statusCode).toBe(500)
      expect(failed).toBe(true)
      expect(app.ws.read('MEMORY.md')).toBe('# Before\nthe old main notes\n')
      expect(fs.existsSync(app.ws.abs('memory/a.md'))).toBe(false)
      expect((await app.search({ query: 'gliders' })).body.results).toEqual([])
    } finally {
      await app.close()
    }
  })

  it('leaves no file behind when setting a restored file’s time fails (a failing disk)', async () => {
    let timed = 0
    const writePort: WritePort = {
      ...nodeWritePort,
      setTimes: (handle, seconds) =>
        ++timed === 2
          ? Promise.reject(Object.assign(new Error('EIO: i/o error, futimes'), { code: 'EIO' }))
          : nodeWritePort.setTimes(handle, seconds),
    }
    const app = await buildAgentsApp({ overrides: { writePort } })
    try {
      const archive = await makeTar([
        { name: 'main/memory/a.md', body: 'imported note about airships\n' },
        { name: 'main/memory/b.md', body: 'this one meets a failing disk\n' },
      ])
      const res = await app.app.inject({ method: 'POST', url: '/import', headers: TAR, payload: archive })
      expect(res.statusCode).toBe(500)
      expect(timed).toBe(2)
      // No temp file either: the folder the import made is removed, and only an empty one can be.
      expect(fs.existsSync(app.ws.abs('memory'))).toBe(false)
    } finally {
      await app.close()
    }
  })
})

describe('an import past MNEMO_MAX_FOLDERS_PER_AGENT', () => {
  /** `memory/d1/d2/…/d<depth>/deep.md`: a file `depth` folders below memory/. */
  const deep = (depth: number) => `memory/${Array.from({ length: depth }, (_, i) => `d${i + 1}`).join('/')}/deep.md`

  it('is refused whole before a folder is made, and later writes to new folders still work', async () => {
    // The default cap, 100 folders; before, such an entry left 100 and every later new folder was refused.
    const app = await buildAgentsApp()
    try {
      const name = `main/${deep(120)}`
      const archive = await makeTar([
        { name: 'main/memory/first.md', body: 'written before the deep one, once\n' },
        { name, body: 'far down\n' },
      ])
      const res = await app.app.inject({ method: 'POST', url: '/import', headers: TAR, payload: archive })
      expect(res.statusCode).toBe(409)
      expect(res.json()).toMatchObject({ code: 'FOLDER_LIMIT', details: { entry: name, maxFolders: 100 } })
      expect(fs.existsSync(app.ws.abs('memory'))).toBe(false)
      const later = await app.call('PUT', '/files/memory/projects/later.md', { payload: { content: 'fine\n' } })
      expect(later.statusCode).toBe(201)
      // 99 more fit beside memory/ and memory/projects/: one archive of exactly that lands.
      const fits = await makeTar([{ name: `main/${deep(98)}`, body: 'just fits\n' }])
      const ok = await app.app.inject({ method: 'POST', url: '/import', headers: TAR, payload: fits })
      expect(ok.json()).toMatchObject({ written: 1 })
    } finally {
      await app.close()
    }
  })

  it("counts each space's folders against what it has, and creates no agent for a refused archive", async () => {
    const app = await buildAgentsApp({ env: { MNEMO_MAX_FOLDERS_PER_AGENT: '4' } })
    try {
      // coder has memory/ and memory/a/: two more fit, a third does not.
      const put = await app.call('PUT', '/files/memory/a/one.md', { agent: 'coder', payload: { content: '1\n' } })
      expect(put.statusCode).toBe(201)
      const archive = await makeTar([
        { name: 'agents/newbie/memory/hello.md', body: 'would create newbie\n' },
        { name: 'agents/coder/memory/b/two.md', body: '2\n' },
        { name: 'agents/coder/memory/a/also.md', body: 'in a folder coder has\n' },
        { name: 'agents/coder/memory/c/three.md', body: '3\n' },
        { name: 'agents/coder/memory/d/four.md', body: '4\n' },
      ])
      const res = await app.app.inject({ method: 'POST', url: '/import', headers: TAR, payload: archive })
      expect(res.statusCode).toBe(409)
      expect(res.json()).toMatchObject({ code: 'FOLDER_LIMIT', details: { entry: 'agents/coder/memory/d/four.md' } })
      expect(fs.readdirSync(app.agentsDir)).toEqual(['coder'])
      expect(fs.readdirSync(path.join(app.agentsDir, 'coder', 'memory'))).toEqual(['a'])
      expect(fs.readdirSync(path.join(app.agentsDir, 'coder', 'memory', 'a'))).toEqual(['one.md'])
      // Without the last entry it fits exactly, and newbie is created with its one folder.
      const fits = await makeTar([
        { name: 'agents/newbie/memory/hello.md', body: 'newbie exists now\n' },
        { name: 'agents/coder/memory/b/two.md', body: '2\n' },
        { name: 'agents/coder/memory/c/three.md', body: '3\n' },
      ])
      const ok = await app.app.inject({ method: 'POST', url: '/import', headers: TAR, payload: fits })
      expect(ok.json()).toMatchObject({ written: 3 })
      expect(fs.readdirSync(path.join(app.agentsDir, 'coder', 'memory')).sort()).toEqual(['a', 'b', 'c'])
    } finally {
      await app.close()
    }
  })

  it('keeps a folder the undone import made once something else was written into it', async () => {
    let writes = 0
    let failAt = Infinity
    const writePort: WritePort = {
      ...nodeWritePort,
      write: (handle, bytes, offset, length) => {
        if (++writes !== failAt) return handle.write(bytes, offset, length)
        // Meanwhile another program writes into the folder the import made for its first file.
        fs.writeFileSync(app.ws.abs('memory/kept/by-hand.md'), 'not the import’s\n')
        return Promise.reject(Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }))
      },
    }
    const app = await buildAgentsApp({ overrides: { writePort } })
    try {
      const archive = await makeTar([
        { name: 'main/memory/kept/one.md', body: 'first\n' },
        { name: 'main/memory/gone/two.md', body: 'meets a full disk\n' },
      ])
      failAt = writes + 2
      const res = await app.app.inject({ method: 'POST', url: '/import', headers: TAR, payload: archive })
      expect(res.statusCode).toBe(507)
      expect(fs.readdirSync(app.ws.abs('memory'))).toEqual(['kept'])
      expect(fs.readdirSync(app.ws.abs('memory/kept'))).toEqual(['by-hand.md'])
    } finally {
      await app.close()
    }
  })
})

describe('modification times a tar header cannot hold', () => {
  it('travel in a PAX record: a note last changed after 2038-01-19 keeps its time (it became 2242 before)', async () => {
    const source = await buildAgentsApp()
    const target = await buildAgentsApp()
    try {
      source.ws.write('memory/later.md', 'a note from the future\n')
      const later = new Date('2040-06-01T12:00:00Z')
      fs.utimesSync(source.ws.abs('memory/later.md'), later, later)
      const exported = await source.app.inject({ method: 'GET', url: '/export' })
      expect(exported.statusCode).toBe(200)
      const res = await target.app.inject({
        method: 'POST',
        url: '/import',
        headers: TAR,
        payload: exported.rawPayload,
      })
      expect(res.json()).toMatchObject({ files: [{ path: 'main/memory/later.md', outcome: 'created' }] })
      expect(fs.statSync(target.ws.abs('memory/later.md')).mtime).toEqual(later)
    } finally {
      await source.close()
      await target.close()
    }
  })
})

describe('an export to a client that stopped reading', () => {
  it('is cut short when the server closes, so the close does not wait for the client forever', async () => {
    const app = await buildAgentsApp()
    // More than the socket buffers hold on both ends (a few MiB each on loopback).
    for (let i = 0; i < 40; i++) app.ws.write(`memory/f${i}.md`, `line ${i}\n`.repeat(25_000))
    await app.sync()
    await app.app.listen({ host: '127.0.0.1', port: 0 })
    const { port } = app.app.server.address() as net.AddressInfo
    const client = net.connect(port, '127.0.0.1')
    const clientClosed = new Promise<void>((resolve) => client.once('close', () => resolve()))
    await new Promise((resolve) => client.once('connect', resolve))
    client.pause()
    client.write('GET /export HTTP/1.1\r\nHost: localhost\r\n\r\n')
    // Until the export is under way (its first bytes reached the client's buffer).
    await new Promise((resolve) => client.once('readable', resolve))
    await app.close()
    client.resume()
    await clientClosed
  }, 30_000)
})
