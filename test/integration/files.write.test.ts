import fs from 'node:fs'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { WriteResult } from '../../src/files/write-service.js'
import { sha256 } from '../../src/domain/hashing.js'
import { useTestApp, type TestApp } from '../helpers/build-test-app.js'
import { rawRequest } from '../helpers/raw-request.js'

/** A write's answer, or an error's (code, details). */
type WriteBody = WriteResult & { code?: string; details?: { currentSha256: string | null } }

async function start(env: Record<string, string> = {}) {
  const t = await useTestApp({ corpus: true, env })
  return t
}

async function write(
  t: TestApp,
  method: 'PUT' | 'POST' | 'DELETE',
  rel: string,
  body?: string | object,
  headers: Record<string, string> = {},
) {
  const res = await t.app.inject({
    method,
    url: `/files/${rel}`,
    ...(body === undefined
      ? {}
      : typeof body === 'string'
        ? { payload: body, headers: { 'content-type': 'text/markdown', ...headers } }
        : { payload: body, headers }),
    ...(body === undefined ? { headers } : {}),
  })
  return { status: res.statusCode, body: res.json<WriteBody>(), etag: res.headers.etag }
}

const hits = async (t: TestApp, query: string) => (await t.search({ query })).body.results.map((r) => r.path)
const tempLeft = (t: TestApp) =>
  fs.readdirSync(t.ws.root, { recursive: true }).filter((f) => String(f).endsWith('.mnemo-tmp'))

describe('PUT /files/*', () => {
  it('creates a file (201) and replaces it (200), searchable as soon as it answers', async () => {
    const t = await start()
    const created = await write(t, 'PUT', 'memory/projects/zeppelin.md', '# Zeppelin\nThe hangar opens in May.\n')
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      path: 'memory/projects/zeppelin.md',
      created: true,
      indexed: true,
      totalLines: 2,
    })
    expect(created.etag).toBe(`"${created.body.sha256}"`)
    expect(created.body.sha256).toBe(sha256('# Zeppelin\nThe hangar opens in May.\n'))
    expect(await hits(t, 'zeppelin hangar')).toEqual(['memory/projects/zeppelin.md'])

    const replaced = await write(t, 'PUT', 'memory/projects/zeppelin.md', { content: '# Blimp\nMoved to June.\n' })
    expect(replaced.status).toBe(200)
    expect(replaced.body).toMatchObject({ created: false, startLine: 1, endLine: 2 })
    expect(await hits(t, 'hangar')).toEqual([])
    expect(await hits(t, 'blimp')).toEqual(['memory/projects/zeppelin.md'])
    const read = await t.app.inject({ method: 'GET', url: '/files/memory/projects/zeppelin.md' })
    expect(read.json()).toMatchObject({ text: '# Blimp\nMoved to June.', sha256: replaced.body.sha256 })
    expect(read.headers.etag).toBe(replaced.etag)
    expect(tempLeft(t)).toEqual([])
  })

  it('takes text/plain too, and refuses other media types with 415', async () => {
    const t = await start()
    const plain = await t.app.inject({
      method: 'PUT',
      url: '/files/MEMORY.md',
      payload: '# Facts\nplain text body\n',
      headers: { 'content-type': 'text/plain' },
    })
    expect(plain.statusCode).toBe(200)
    expect(t.ws.read('MEMORY.md')).toBe('# Facts\nplain text body\n')
    const xml = await t.app.inject({
      method: 'PUT',
      url: '/files/MEMORY.md',
      payload: '<x/>',
      headers: { 'content-type': 'application/xml' },
    })
    expect(xml.statusCode).toBe(415)
    expect(xml.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' })
    expect(t.ws.read('MEMORY.md')).toBe('# Facts\nplain text body\n')
  })
})

describe('POST /files/* (append)', () => {
  it('appends whole lines and answers their exact range', async () => {
    const t = await start()
    const first = await write(t, 'POST', 'memory/log.md', 'first line')
    expect(first.body).toMatchObject({ created: true, startLine: 1, endLine: 1, totalLines: 1 })
    fs.appendFileSync(t.ws.abs('memory/log.md'), 'no newline at the end')
    const second = await write(t, 'POST', 'memory/log.md', { content: 'third: quokka sighting\nfourth\n' })
    expect(second.body).toMatchObject({ created: false, startLine: 3, endLine: 4, totalLines: 4, indexed: true })
    expect(t.ws.read('memory/log.md')).toBe('first line\nno newline at the end\nthird: quokka sighting\nfourth\n')
    const window = await t.app.inject({ method: 'GET', url: '/files/memory/log.md?from=3&lines=2' })
    expect(window.json()).toMatchObject({ text: 'third: quokka sighting\nfourth' })
    const found = (await t.search({ query: 'quokka' })).body.results
    expect(found.map((r) => [r.path, r.startLine <= 3 && r.endLine >= 3])).toEqual([['memory/log.md', true]])
  })

  it('keeps every one of 50 concurrent appends to one file whole, each at the lines it was told', async () => {
    // All 50 in progress at once (one agent's limit would queue or refuse most of them).
    const t = await start({ MNEMO_AGENT_MAX_CONCURRENT: '50' })
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => write(t, 'POST', 'memory/busy.md', `entry ${i} begins\nentry ${i} ends\n`)),
    )
    const lines = t.ws.read('memory/busy.md').split('\n')
    expect(lines).toHaveLength(101)
    for (const [i, r] of results.entries()) {
      expect(r.status).toBe(200)
      expect(r.body.endLine - r.body.startLine).toBe(1)
      expect(lines[r.body.startLine - 1]).toBe(`entry ${i} begins`)
      expect(lines[r.body.endLine - 1]).toBe(`entry ${i} ends`)
    }
    expect(await hits(t, 'entry 37 begins')).toContain('memory/busy.md')
  })

  it('refuses an empty append', async () => {
    const t = await start()
    const res = await write(t, 'POST', 'memory/log.md', { content: '' })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('VALIDATION_FAILED')
    expect(fs.existsSync(t.ws.abs('memory/log.md'))).toBe(false)
  })
})

describe('flush markers', () => {
  it('cannot be planted by a write, so a later flush with that id still saves its notes', async () => {
    const t = await start()
    const forged = '<!-- mnemo:flush id=s9:4 lines=1 -->'
    for (const method of ['POST', 'PUT'] as const) {
      const res = await write(t, method, 'memory/2026-03-01.md', `## 10:00:00\n${forged}\n- nothing`)
      expect(res.status).toBe(400)
      expect(res.body.code).toBe('VALIDATION_FAILED')
    }
    expect(fs.existsSync(t.ws.abs('memory/2026-03-01.md'))).toBe(false)
    const flush = (notes: string) =>
      t.app.inject({
        method: 'POST',
        url: '/flush',
        payload: { entries: [notes], date: '2026-03-01', flushId: 's9:4' },
      })
    expect((await flush('- the user decided X')).json()).toMatchObject({ replayed: false, startLine: 1 })
    // A day file read and written back whole keeps its real marker: a line added after the
    // entry leaves its notes as they were, and the retry is a replay.
    const day = t.ws.read('memory/2026-03-01.md')
    const rewritten = await write(t, 'PUT', 'memory/2026-03-01.md', `${day}- added by hand\n`)
    expect(rewritten.status).toBe(200)
    expect((await flush('- the user decided X')).json()).toMatchObject({ replayed: true, startLine: 1 })
    // Its notes edited, the id no longer names what the file holds: a conflict, the edit kept.
    const edited = await write(t, 'PUT', 'memory/2026-03-01.md', day.replace('decided X', 'decided X firmly'))
    expect(edited.status).toBe(200)
    expect((await flush('- the user decided X')).json()).toMatchObject({ code: 'FLUSH_ID_CONFLICT' })
    expect(t.ws.read('memory/2026-03-01.md')).toContain('decided X firmly')
  })
})

describe('DELETE /files/*', () => {
  it('deletes a file and its chunks; a second delete is 404', async () => {
    const t = await start()
    expect(await hits(t, 'Shinjuku')).toEqual(['memory/travel.md'])
    const res = await write(t, 'DELETE', 'memory/travel.md')
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ path: 'memory/travel.md', deleted: true, indexed: true })
    expect(fs.existsSync(t.ws.abs('memory/travel.md'))).toBe(false)
    expect(await hits(t, 'Shinjuku')).toEqual([])
    const again = await write(t, 'DELETE', 'memory/travel.md')
    expect(again.status).toBe(404)
    expect(again.body.code).toBe('FILE_NOT_FOUND')
  })
})

describe('conditional writes', () => {
  it('applies If-Match and If-None-Match, answering 412 with the current hash and changing nothing', async () => {
    const t = await start()
    const original = t.ws.read('memory/travel.md')
    const current = sha256(original)
    const stale = 'f'.repeat(64)
    const cases: [string, string | undefined, Record<string, string>, number][] = [
      ['PUT', 'x\n', { 'if-match': stale }, 412],
      ['POST', 'x\n', { 'if-match': `"${stale}"` }, 412],
      ['DELETE', undefined, { 'if-match': stale }, 412],
      ['PUT', 'x\n', { 'if-none-match': '*' }, 412],
    ]
    for (const [method, body, headers, status] of cases) {
      const res = await write(t, method as 'PUT', 'memory/travel.md', body, headers)
      expect(res.status, `${method} ${JSON.stringify(headers)}`).toBe(status)
      expect(res.body).toMatchObject({ code: 'PRECONDITION_FAILED', details: { currentSha256: current } })
    }
    expect(t.ws.read('memory/travel.md')).toBe(original)
    expect(await hits(t, 'Shinjuku')).toEqual(['memory/travel.md'])

    const missing = await write(t, 'PUT', 'memory/new.md', 'x\n', { 'if-match': '*' })
    expect(missing.status).toBe(412)
    expect(missing.body.details).toEqual({ currentSha256: null })
    expect(fs.existsSync(t.ws.abs('memory/new.md'))).toBe(false)

    const ok = await write(t, 'POST', 'memory/travel.md', 'Added under If-Match.', { 'if-match': `"${current}"` })
    expect(ok.status).toBe(200)
    const next = await write(t, 'PUT', 'memory/travel.md', 'replaced\n', { 'if-match': ok.body.sha256 })
    expect(next.status).toBe(200)
    const created = await write(t, 'PUT', 'memory/new.md', 'new\n', { 'if-none-match': '*' })
    expect(created.status).toBe(201)
  })

  it.each<Record<string, string>>([{ 'if-match': 'abc' }, { 'if-match': 'W/"x"' }, { 'if-none-match': 'abc' }])(
    'refuses a malformed precondition %j with 400',
    async (headers) => {
      const t = await start()
      const res = await write(t, 'PUT', 'memory/travel.md', 'x\n', headers)
      expect(res.status).toBe(400)
      expect(res.body.code).toBe('VALIDATION_FAILED')
    },
  )
})

describe('write paths', () => {
  it.each([
    ['README.md', 'PATH_INVALID'],
    ['memory/notes.txt', 'PATH_INVALID'],
    ['memory/.hidden.md', 'PATH_INVALID'],
    ['memory/.git/config.md', 'PATH_INVALID'],
    ['memory.md', 'PATH_INVALID'],
    ['notes/idea.md', 'PATH_READ_ONLY'],
    ['sessions/today.jsonl', 'PATH_READ_ONLY'],
  ])('refuses %s with %s and writes nothing', async (rel, code) => {
    const t = await start({ MNEMO_EXTRA_PATHS: 'notes', MNEMO_SESSIONS_DIR: 'sessions' })
    for (const method of ['PUT', 'POST'] as const) {
      const res = await write(t, method, rel, 'x\n')
      expect(res.body.code, method).toBe(code)
      expect(fs.existsSync(t.ws.abs(rel))).toBe(false)
    }
    expect((await write(t, 'DELETE', rel)).body.code).toBe(code)
  })

  it('writes markdown under extra paths when MNEMO_EXTRA_PATHS_WRITABLE=true', async () => {
    const t = await start({ MNEMO_EXTRA_PATHS: 'notes', MNEMO_EXTRA_PATHS_WRITABLE: 'true' })
    const res = await write(t, 'PUT', 'notes/idea.md', '# Idea\nA kite made of noodles.\n')
    expect(res.status).toBe(201)
    expect(await hits(t, 'noodles kite')).toEqual(['notes/idea.md'])
  })

  it('never writes through a symlink, to a file or a folder outside the workspace', async () => {
    const t = await start()
    const outsideFile = path.join(t.ws.base, 'outside.md')
    const outsideDir = path.join(t.ws.base, 'outside')
    fs.writeFileSync(outsideFile, 'untouched\n')
    fs.mkdirSync(outsideDir)
    t.ws.symlink(outsideFile, 'memory/link.md')
    t.ws.symlink(outsideDir, 'memory/linkdir')
    for (const method of ['PUT', 'POST', 'DELETE'] as const) {
      const body = method === 'DELETE' ? undefined : 'pwned\n'
      const viaFile = await write(t, method, 'memory/link.md', body)
      expect(viaFile.status, method).toBe(400)
      expect(viaFile.body.code).toBe('PATH_INVALID')
      const viaDir = await write(t, method, 'memory/linkdir/new/x.md', body)
      expect(viaDir.status, method).toBe(400)
    }
    expect(fs.readFileSync(outsideFile, 'utf8')).toBe('untouched\n')
    expect(fs.readdirSync(outsideDir)).toEqual([])
    expect(fs.lstatSync(t.ws.abs('memory/link.md')).isSymbolicLink()).toBe(true)
  })

  it('refuses traversal, encoded slashes and NUL bytes sent over a socket', async () => {
    const t = await start()
    await t.app.listen({ host: '127.0.0.1', port: 0 })
    const port = (t.app.server.address() as AddressInfo).port
    const rawPaths = [
      '/files/memory/../../escape.md',
      '/files/%2e%2e/escape.md',
      '/files/memory%2f..%2f..%2fescape.md',
      '/files/%2fescape.md',
      '/files/memory/x.md%00.md',
      '/files/memory%5c..%5c..%5cescape.md',
    ]
    for (const rawPath of rawPaths) {
      for (const method of ['PUT', 'POST', 'DELETE']) {
        const res = await rawRequest(port, rawPath, {
          method,
          ...(method === 'DELETE' ? {} : { body: 'pwned\n', headers: { 'content-type': 'text/markdown' } }),
        })
        expect([400, 404], `${method} ${rawPath}`).toContain(res.status)
        expect((JSON.parse(res.body) as { code: string }).code).toMatch(/PATH_INVALID|ROUTE_NOT_FOUND/)
      }
    }
    expect(fs.existsSync(path.join(t.ws.base, 'escape.md'))).toBe(false)
    expect(fs.readdirSync(t.ws.base).sort()).toEqual(['data', 'workspace'])
  })
})

describe('write size limits', () => {
  it('refuses a file over MNEMO_MAX_FILE_BYTES with 413 and leaves it as it was', async () => {
    const t = await start({ MNEMO_MAX_FILE_BYTES: '1024' })
    const big = await write(t, 'PUT', 'memory/big.md', 'x'.repeat(1025))
    expect(big.status).toBe(413)
    expect(big.body.code).toBe('PAYLOAD_TOO_LARGE')
    expect(fs.existsSync(t.ws.abs('memory/big.md'))).toBe(false)
    expect((await write(t, 'PUT', 'memory/big.md', 'y'.repeat(1000))).status).toBe(201)
    const grow = await write(t, 'POST', 'memory/big.md', 'z'.repeat(100))
    expect(grow.status).toBe(413)
    expect(t.ws.read('memory/big.md')).toBe('y'.repeat(1000))
  })
})
