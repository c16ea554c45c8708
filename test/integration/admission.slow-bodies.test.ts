/**
 * Slow and greedy uploads over real sockets (issue 30): a body that stops arriving, or never
 * ends, is answered 408 REQUEST_TIMEOUT and its connection closed, on every route with a
 * body; a body holds the bytes that arrived, not the most it could be; and one agent may hold
 * only its share of the bytes in flight, so its uploads make only that agent wait. Nothing a
 * refused or timed-out upload carried is written. Runs on both engines (POSTGRES_API_SUITE).
 */
import fs from 'node:fs'
import path from 'node:path'
import tar from 'tar-stream'
import { describe, expect, it, onTestFinished } from 'vitest'
import { useAgentsApp, type AgentsApp } from '../helpers/agents-app.js'
import { rawSocket } from '../helpers/raw-socket.js'
import { waitFor } from '../helpers/wait-for.js'

/** Small limits: a file or JSON body may take 16 KiB, all bodies 64 KiB, one agent 32 KiB. */
const LIMITS = {
  MNEMO_MAX_FILE_BYTES: '16384',
  MNEMO_BODY_LIMIT_BYTES: '16384',
  MNEMO_MAX_BODY_BYTES_IN_FLIGHT: '65536',
}
/** Short time limits, so a stalled body is answered within the test. */
const QUICK = { MNEMO_REQUEST_TIMEOUT_MS: '1500', MNEMO_BODY_IDLE_TIMEOUT_MS: '500' }
/** Time limits far past a test's length: open uploads stay open while the test looks. */
const PATIENT = { MNEMO_REQUEST_TIMEOUT_MS: '120000', MNEMO_BODY_IDLE_TIMEOUT_MS: '120000' }
const TAR = 'application/x-tar'
const KIB = 1024

let t: AgentsApp
let port: number
let base: string

async function listening(env: Record<string, string>) {
  t = await useAgentsApp({ env: { ...LIMITS, ...env } })
  for (const agent of ['alice', 'bob', 'carol']) t.writeAgentFile(agent, 'MEMORY.md', `- ${agent} drinks green tea.\n`)
  await t.app.listen({ host: '127.0.0.1', port: 0 })
  port = (t.app.server.address() as { port: number }).port
  base = `http://127.0.0.1:${port}`
}

/** A raw connection, destroyed when the test ends if the server has not closed it. */
function connection() {
  const socket = rawSocket(port)
  onTestFinished(() => void socket.destroy())
  return socket
}

/** Starts a chunked upload acting for `agent` and sends its first chunk. */
function chunkedUpload(agent: string, method: string, url: string, contentType: string, first: string) {
  const socket = connection()
  socket.send(method, url, { 'content-type': contentType, 'transfer-encoding': 'chunked', 'x-mnemo-agent': agent })
  socket.writeChunk(first)
  return socket
}

const call = (agent: string, method: string, url: string, body: string, contentType = 'application/json') =>
  fetch(`${base}${url}`, { method, headers: { 'content-type': contentType, 'x-mnemo-agent': agent }, body })

async function metrics(): Promise<string> {
  return (await fetch(`${base}/metrics`)).text()
}

/** Waits until the body bytes in flight are `bytes` (bytes are given back as responses close). */
async function bytesInFlightSettle(bytes: number): Promise<void> {
  await waitFor(async () => {
    const held = Number(/^mnemo_request_body_bytes_in_flight (\d+)$/m.exec(await metrics())?.[1])
    return held === bytes ? true : undefined
  })
}

/** The start of a real tar archive: one file's header and data, never its end-of-archive marker. */
async function tarStart(bytes: number): Promise<string> {
  const pack = tar.pack()
  const chunks: Buffer[] = []
  pack.on('data', (c: unknown) => void chunks.push(c as Buffer))
  const ended = new Promise<void>((resolve) => pack.on('end', () => resolve()))
  pack.entry({ name: 'memory/imported.md' }, '- an imported note about tea\n'.repeat(200))
  pack.finalize()
  await ended
  // ASCII through and through (header fields, NUL padding, the note), so a string carries it.
  return Buffer.concat(chunks).subarray(0, bytes).toString('latin1')
}

const notes = (bytes: number, word = 'tea') => `- a note about ${word}\n`.repeat(bytes).slice(0, bytes)

describe('slow bodies', () => {
  it.each([
    ['PUT', '/files/memory/slow.md', 'text/markdown'],
    ['POST', '/files/memory/slow.md', 'application/json'],
    ['POST', '/flush', 'application/json'],
    ['POST', '/search', 'application/json'],
    ['POST', '/mcp', 'application/json'],
    ['POST', '/import', TAR],
  ])(
    'answers %s %s whose Content-Length never fully arrives with 408 and closes the connection',
    async (method, url, contentType) => {
      await listening(QUICK)
      const socket = connection()
      const start = contentType === TAR ? await tarStart(600) : '{"content": "- the start'
      socket.send(
        method,
        url,
        {
          'content-type': contentType,
          'content-length': 4000,
          'x-mnemo-agent': 'main',
          accept: 'application/json, text/event-stream',
        },
        start,
      )
      const res = await socket.response()
      expect(res.status).toBe(408)
      expect(res.headers.connection).toBe('close')
      const body = JSON.parse(res.body) as Record<string, unknown>
      expect(body).toMatchObject({ statusCode: 408, code: 'REQUEST_TIMEOUT', error: 'Request Timeout' })
      expect(body.message).toMatch(/MNEMO_BODY_IDLE_TIMEOUT_MS/)
      // Answered by the service's own hooks (Node's own timeout would give a fresh id).
      expect(body.requestId).toBe(res.headers['x-request-id'])
      // The server closes the connection without waiting for the rest.
      await socket.closed
      await bytesInFlightSettle(0)
      expect(fs.existsSync(t.ws.abs('memory/slow.md'))).toBe(false)
      expect(fs.existsSync(t.ws.abs('memory/imported.md'))).toBe(false)
    },
  )

  it('closes the connection of a body answered unread (415) that never ends, at the request deadline', async () => {
    await listening(QUICK)
    const socket = connection()
    socket.send('PUT', '/files/memory/slow.md', { 'content-type': 'image/png', 'content-length': 4000 }, 'PNG')
    const res = await socket.response()
    expect(res.status).toBe(415)
    // Kept alive while Node discards the rest of the body, until the body's time is up.
    await socket.closed
    await bytesInFlightSettle(0)
  })

  it('closes the connection of a body refused before it is read (401) that never ends, with the answer', async () => {
    await listening({ ...PATIENT, MNEMO_API_TOKEN: 'a-long-enough-admin-token-for-tests' })
    const socket = connection()
    socket.send('PUT', '/files/memory/slow.md', { 'content-type': 'text/markdown', 'content-length': 4000 }, '- a')
    const res = await socket.response()
    expect(res.status).toBe(401)
    expect(res.headers.connection).toBe('close')
    // Node would discard the rest for as long as it came, and no timer of its ends that.
    await socket.closed
  })

  it('answers a chunked file write that goes silent with 408 after the idle time, and leaves the file as it was', async () => {
    await listening(QUICK)
    const original = '- the original note about green tea\n'
    expect((await call('main', 'PUT', '/files/memory/kept.md', original, 'text/markdown')).status).toBe(201)

    const socket = chunkedUpload('main', 'PUT', '/files/memory/kept.md', 'text/markdown', '- replaced by oolong\n')
    const res = await socket.response()
    expect(res.status).toBe(408)
    expect(res.headers.connection).toBe('close')
    expect(JSON.parse(res.body)).toMatchObject({ code: 'REQUEST_TIMEOUT', message: /MNEMO_BODY_IDLE_TIMEOUT_MS/ })
    await socket.closed

    expect(fs.readFileSync(t.ws.abs('memory/kept.md'), 'utf8')).toBe(original)
    const found = await t.search({ query: 'oolong', mode: 'keyword' })
    expect(found.statusCode).toBe(200)
    expect(found.body.results).toEqual([])
  })

  it('answers a chunked import that trickles but never ends with 408 at the request deadline', async () => {
    await listening(QUICK)
    const archive = await tarStart(4096)
    const socket = chunkedUpload('main', 'POST', '/import', TAR, archive.slice(0, 64))
    // A chunk far more often than the idle time: only the request's deadline can end it.
    let sent = 64
    const trickle = setInterval(() => {
      if (sent + 64 > archive.length) return
      socket.writeChunk(archive.slice(sent, sent + 64))
      sent += 64
    }, 50)
    onTestFinished(() => clearInterval(trickle))

    const res = await socket.response()
    clearInterval(trickle)
    expect(res.status).toBe(408)
    expect(res.headers.connection).toBe('close')
    expect(JSON.parse(res.body)).toMatchObject({ code: 'REQUEST_TIMEOUT', message: /MNEMO_REQUEST_TIMEOUT_MS/ })
    await socket.closed
    expect(fs.existsSync(t.ws.abs('memory/imported.md'))).toBe(false)
    await bytesInFlightSettle(0)
  })
})

describe('bytes in flight, by agent', () => {
  it('counts silent chunked imports by the bytes that arrived, so another agent’s search and write go on', async () => {
    await listening(PATIENT)
    const start = await tarStart(300)
    const imports = [1, 2].map(() => chunkedUpload('alice', 'POST', '/import', TAR, start))
    // Each holds the 300 bytes it sent, not the 32 KiB it could send.
    await bytesInFlightSettle(600)

    const search = await call('bob', 'POST', '/search', JSON.stringify({ query: 'tea', mode: 'keyword' }))
    expect(search.status).toBe(200)
    const write = await call('bob', 'PUT', '/files/memory/bob.md', notes(12 * KIB), 'text/markdown')
    expect(write.status).toBe(201)
    await bytesInFlightSettle(600)

    for (const upload of imports) upload.destroy()
    await bytesInFlightSettle(0)
    expect(fs.existsSync(path.join(t.agentsDir, 'alice', 'memory', 'imported.md'))).toBe(false)
  })

  it('refuses an agent past its share with 429 AGENT_BUSY, while another agent’s writes go through', async () => {
    await listening(PATIENT)
    const held = [1, 2].map((n) =>
      chunkedUpload('alice', 'PUT', `/files/memory/held-${n}.md`, 'text/markdown', notes(12 * KIB)),
    )
    await bytesInFlightSettle(24 * KIB)

    // Past 32 KiB on the way: refused mid-body, and the connection closes unread.
    const third = chunkedUpload('alice', 'PUT', '/files/memory/third.md', 'text/markdown', notes(12 * KIB))
    const refused = await third.response()
    expect(refused.status).toBe(429)
    expect(refused.headers['retry-after']).toBe('1')
    expect(refused.headers.connection).toBe('close')
    expect(JSON.parse(refused.body)).toMatchObject({ code: 'AGENT_BUSY', message: /Agent "alice".*32768 bytes/ })
    await third.closed

    // A declared length past what is left of the share: refused before a byte is sent.
    const declared = connection()
    declared.send('PUT', '/files/memory/fourth.md', {
      'content-type': 'text/markdown',
      'content-length': 10 * KIB,
      'x-mnemo-agent': 'alice',
    })
    const early = await declared.response()
    expect(early.status).toBe(429)
    expect(JSON.parse(early.body)).toMatchObject({ code: 'AGENT_BUSY' })
    await declared.closed

    // Bob has the rest of the process's budget.
    expect((await call('bob', 'PUT', '/files/memory/bob.md', notes(12 * KIB), 'text/markdown')).status).toBe(201)
    const search = await call('bob', 'POST', '/search', JSON.stringify({ query: 'tea', mode: 'keyword' }))
    expect(search.status).toBe(200)
    expect(await metrics()).toMatch(/^mnemo_requests_rejected_total\{reason="agent_body_share"\} 2$/m)

    for (const upload of held) upload.destroy()
    await bytesInFlightSettle(0)
    for (const name of ['held-1.md', 'held-2.md', 'third.md', 'fourth.md']) {
      expect(fs.existsSync(path.join(t.agentsDir, 'alice', 'memory', name))).toBe(false)
    }
  })

  it('refuses past the process budget with 503 OVERLOADED, each agent within its share', async () => {
    await listening(PATIENT)
    const held = ['alice', 'alice', 'bob', 'bob'].map((agent, n) =>
      chunkedUpload(agent, 'PUT', `/files/memory/held-${n}.md`, 'text/markdown', notes(14 * KIB)),
    )
    await bytesInFlightSettle(56 * KIB)

    const carol = chunkedUpload('carol', 'PUT', '/files/memory/carol.md', 'text/markdown', notes(12 * KIB))
    const refused = await carol.response()
    expect(refused.status).toBe(503)
    expect(refused.headers['retry-after']).toBe('1')
    expect(refused.headers.connection).toBe('close')
    expect(JSON.parse(refused.body)).toMatchObject({ code: 'OVERLOADED', message: /MNEMO_MAX_BODY_BYTES_IN_FLIGHT/ })
    await carol.closed
    // What carol's refused body held is given back; what is left still takes a small body.
    await bytesInFlightSettle(56 * KIB)
    expect((await call('carol', 'POST', '/search', JSON.stringify({ query: 'tea' }))).status).toBe(200)
    expect(await metrics()).toMatch(/^mnemo_requests_rejected_total\{reason="body_budget"\} 1$/m)

    for (const upload of held) upload.destroy()
    await bytesInFlightSettle(0)
    expect(fs.existsSync(path.join(t.agentsDir, 'carol', 'memory', 'carol.md'))).toBe(false)
  })
})
