import fs from 'node:fs'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'
import { rawRequest } from '../helpers/raw-request.js'

const SECRET = 'TOP-SECRET-OUTSIDE-THE-WORKSPACE'

const rawGet = (port: number, rawPath: string) => rawRequest(port, rawPath)

describe('GET /files/*', () => {
  let t: TestApp
  let port: number

  beforeAll(async () => {
    t = await buildTestApp({ corpus: true, sync: false })
    fs.writeFileSync(path.join(t.ws.base, 'secret.md'), `${SECRET}\n`)
    fs.mkdirSync(path.join(t.ws.base, 'outside'))
    fs.writeFileSync(path.join(t.ws.base, 'outside', 'notes.md'), `${SECRET}\n`)
    t.ws.symlink(path.join(t.ws.base, 'secret.md'), 'memory/link-out.md')
    t.ws.symlink(path.join(t.ws.base, 'outside'), 'memory/linkdir')
    t.ws.symlink(t.ws.abs('memory/travel.md'), 'memory/link-in.md')
    t.ws.write('memory/中文 笔记.md', '第一行\n第二行\n')
    fs.mkdirSync(t.ws.abs('memory/folder.md'))
    await t.sync()
    await t.app.listen({ host: '127.0.0.1', port: 0 })
    port = (t.app.server.address() as AddressInfo).port
  })
  afterAll(() => t.close())

  it.each([
    ['/files/../../etc/passwd', 'PATH_INVALID'],
    ['/files/memory/../../secret.md', 'PATH_INVALID'],
    ['/files/memory/../MEMORY.md', 'PATH_INVALID'],
    ['/files/%2e%2e/%2e%2e/secret.md', 'PATH_INVALID'],
    ['/files/%2E%2E%2F%2E%2E%2Fsecret.md', 'PATH_INVALID'],
    ['/files/..%2f..%2fsecret.md', 'PATH_INVALID'],
    ['/files/memory%2f..%2f..%2fsecret.md', 'PATH_INVALID'],
    ['/files/%2fetc%2fpasswd', 'PATH_INVALID'],
    ['/files//etc/passwd', 'PATH_INVALID'],
    ['/files/C:/Windows/win.ini', 'PATH_INVALID'],
    ['/files/memory%5c..%5c..%5csecret.md', 'PATH_INVALID'],
    ['/files/memory\\..\\..\\secret.md', 'PATH_INVALID'],
    ['/files/memory/travel.md%00.txt', 'PATH_INVALID'],
    ['/files/memory/%00', 'PATH_INVALID'],
    ['/files/%252e%252e/%252e%252e/secret.md', 'PATH_INVALID'],
    ['/files/memory/link-out.md', 'PATH_INVALID'],
    ['/files/memory/linkdir/notes.md', 'PATH_INVALID'],
    ['/files/memory/./travel.md', 'PATH_INVALID'],
    ['/files/memory//travel.md', 'PATH_INVALID'],
    ['/files/README.md', 'PATH_INVALID'],
    ['/files/memory/travel.txt', 'PATH_INVALID'],
    ['/files/memory/%zz.md', 'PATH_INVALID'],
    ['/files/', 'PATH_INVALID'],
    ['/files/memory/missing.md', 'FILE_NOT_FOUND'],
    ['/files/memory/folder.md', 'FILE_NOT_FOUND'],
  ])('refuses %s with %s and never reads outside the workspace', async (rawPath, code) => {
    const res = await rawGet(port, rawPath)
    expect(res.body).not.toContain(SECRET)
    expect(res.body).not.toContain(t.ws.base)
    expect(res.status).toBe(code === 'FILE_NOT_FOUND' ? 404 : 400)
    expect(JSON.parse(res.body)).toMatchObject({ code, statusCode: res.status })
  })

  it('refuses MEMORY.md when it is a symlink to a file outside the workspace', async () => {
    const t2 = await buildTestApp({ sync: false })
    try {
      fs.writeFileSync(path.join(t2.ws.base, 'passwd'), SECRET)
      t2.ws.symlink(path.join(t2.ws.base, 'passwd'), 'MEMORY.md')
      await t2.sync()
      const res = await t2.app.inject({ method: 'GET', url: '/files/MEMORY.md' })
      expect(res.statusCode).toBe(400)
      expect(res.body).not.toContain(SECRET)
      const search = await t2.search({ query: SECRET })
      expect(search.body.results).toEqual([])
    } finally {
      await t2.close()
    }
  })

  it('reads a symlink that stays inside the workspace', async () => {
    const res = await rawGet(port, '/files/memory/link-in.md?lines=1')
    expect(res.status).toBe(200)
    expect(JSON.parse(res.body)).toMatchObject({ path: 'memory/link-in.md', text: '# Travel' })
  })

  it('reads a whole file with its line count and SHA-256', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/files/memory/2026-02-16.md' })
    expect(res.statusCode).toBe(200)
    const text = t.ws.read('memory/2026-02-16.md')
    expect(res.json()).toEqual({
      path: 'memory/2026-02-16.md',
      from: 1,
      to: 9,
      totalLines: 9,
      text: text.replace(/\n$/, ''),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    })
  })

  it.each([
    [
      '?from=3&lines=2',
      3,
      4,
      '## 10:32 — model upgrade\n将默认模型从 qwen-plus 升级为 qwen-max，因为长文本推理更稳定。',
    ],
    [
      '?from=8',
      8,
      9,
      'Deployed api-gateway v2.3.1 to production. Health checks stayed green.\nThe canary ran for 30 minutes before the full rollout.',
    ],
    ['?from=9&lines=50', 9, 9, 'The canary ran for 30 minutes before the full rollout.'],
    ['?from=10&lines=5', 10, 9, ''],
    ['?from=1&lines=1', 1, 1, '# 2026-02-16'],
  ])('returns the line window %s', async (query, from, to, text) => {
    const res = await t.app.inject({ method: 'GET', url: `/files/memory/2026-02-16.md${query}` })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ from, to, totalLines: 9, text })
  })

  it('accepts a URL-encoded path and non-ASCII file names', async () => {
    const encoded = await t.app.inject({ method: 'GET', url: '/files/memory%2F2026-02-16.md?lines=1' })
    expect(encoded.json()).toMatchObject({ path: 'memory/2026-02-16.md', text: '# 2026-02-16' })
    const chinese = await t.app.inject({ method: 'GET', url: `/files/${encodeURI('memory/中文 笔记.md')}?from=2` })
    expect(chinese.json()).toMatchObject({ path: 'memory/中文 笔记.md', text: '第二行' })
  })

  it.each(['?from=0', '?from=-1', '?lines=0', '?lines=abc', '?from=1.5', '?lines=100001', '?colour=red'])(
    'rejects the window %s with 400 VALIDATION_FAILED',
    async (query) => {
      const res = await t.app.inject({ method: 'GET', url: `/files/memory/2026-02-16.md${query}` })
      expect(res.statusCode).toBe(400)
      expect(res.json()).toMatchObject({ code: 'VALIDATION_FAILED' })
    },
  )

  it('refuses a file over MNEMO_MAX_FILE_BYTES with 422 FILE_TOO_LARGE', async () => {
    const t2 = await buildTestApp({ env: { MNEMO_MAX_FILE_BYTES: '1024' }, sync: false })
    try {
      t2.ws.write('memory/big.md', 'x'.repeat(2000))
      const res = await t2.app.inject({ method: 'GET', url: '/files/memory/big.md' })
      expect(res.statusCode).toBe(422)
      expect(res.json()).toMatchObject({ code: 'FILE_TOO_LARGE', details: { sizeBytes: 2000 } })
    } finally {
      await t2.close()
    }
  })
})

describe('GET /files', () => {
  it('lists indexed files with size, mtime, sha256, chunks and source', async () => {
    const t = await buildTestApp({ corpus: true })
    try {
      const res = await t.app.inject({ method: 'GET', url: '/files' })
      expect(res.statusCode).toBe(200)
      const files = res.json<{ files: { path: string }[] }>().files
      expect(files.map((f) => f.path)).toEqual([
        'MEMORY.md',
        'memory/2026-02-16.md',
        'memory/2026-02-17.md',
        'memory/projects/search.md',
        'memory/travel.md',
      ])
      expect(files[0]).toEqual({
        path: 'MEMORY.md',
        source: 'memory',
        space: 'agent',
        sizeBytes: fs.statSync(t.ws.abs('MEMORY.md')).size,
        mtime: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        chunks: 2,
        lines: 9,
      })
    } finally {
      await t.close()
    }
  })
})
