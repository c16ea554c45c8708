/**
 * Honest body limits (issues 16, 30) over real sockets: each route takes what it can use
 * (file writes and /flush a file's worth, JSON routes MNEMO_BODY_LIMIT_BYTES), a declared
 * length over it is refused before a byte of the body is sent, and a body holds the bytes
 * that arrived, with nothing leaked when uploads are abandoned.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'
import { rawSocket } from '../helpers/raw-socket.js'
import { waitFor } from '../helpers/wait-for.js'

const FILE_BYTES = 65536
const JSON_BYTES = 16384

let t: TestApp
let base: string
let port: number
afterEach(async () => {
  await t.close()
})

async function listening(env: Record<string, string> = {}) {
  t = await buildTestApp({
    env: {
      MNEMO_MAX_FILE_BYTES: String(FILE_BYTES),
      MNEMO_BODY_LIMIT_BYTES: String(JSON_BYTES),
      MNEMO_MAX_BODY_BYTES_IN_FLIGHT: String(FILE_BYTES),
      ...env,
    },
  })
  await t.app.listen({ host: '127.0.0.1', port: 0 })
  port = (t.app.server.address() as { port: number }).port
  base = `http://127.0.0.1:${port}`
}

const send = (method: string, url: string, body: string, contentType = 'application/json') =>
  fetch(`${base}${url}`, { method, headers: { 'content-type': contentType }, body })

async function bodyBytesInFlight(): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text()
  return Number(/^mnemo_request_body_bytes_in_flight (\d+)/m.exec(text)?.[1])
}

describe('body limits per route', () => {
  it.each([
    ['PUT', '/files/memory/big.md', FILE_BYTES + 1, FILE_BYTES],
    ['POST', '/files/memory/big.md', FILE_BYTES + 1, FILE_BYTES],
    ['POST', '/flush', FILE_BYTES + 1, FILE_BYTES],
    ['POST', '/search', JSON_BYTES + 1, JSON_BYTES],
    ['POST', '/index', JSON_BYTES + 1, JSON_BYTES],
    ['POST', '/mcp', JSON_BYTES + 1, JSON_BYTES],
  ])('refuses %s %s declaring %i bytes with 413 before the body is sent', async (method, url, declared, limit) => {
    await listening()
    const socket = rawSocket(port)
    // Headers only: the answer must come without a byte of the body.
    socket.send(method, url, { 'content-type': 'application/json', 'content-length': declared })
    const res = await socket.response()
    expect(res.status).toBe(413)
    expect(res.headers.connection).toBe('close')
    expect(JSON.parse(res.body)).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: `The body (${declared} bytes) is larger than this route accepts (${limit} bytes)`,
    })
    await socket.closed
    expect(await bodyBytesInFlight()).toBe(0)
  })

  it('answers a body sent to no route 404 at once, without reading or counting it', async () => {
    await listening()
    const socket = rawSocket(port)
    socket.send('POST', '/nowhere', { 'content-type': 'application/json', 'content-length': 9000 }, '{"a":')
    const res = await socket.response()
    expect(res.status).toBe(404)
    expect(JSON.parse(res.body)).toMatchObject({ code: 'ROUTE_NOT_FOUND' })
    expect(res.headers.connection).toBe('close')
    await socket.closed
    expect(await bodyBytesInFlight()).toBe(0)
  })

  it('says "continue" to a client that asks first only once its body is let in', async () => {
    await listening()
    // Too large: refused with no 100 Continue, so the client never sends the body.
    const refused = rawSocket(port)
    refused.send('PUT', '/files/memory/asked.md', {
      'content-type': 'text/markdown',
      'content-length': FILE_BYTES + 1,
      expect: '100-continue',
    })
    const answer = await refused.response()
    expect(answer.status).toBe(413)
    await refused.closed
    // Within the limits: 100 Continue, then the body, then the answer.
    const asked = rawSocket(port)
    const body = '# Asked first\n- sent after 100 Continue\n'
    asked.send('PUT', '/files/memory/asked.md', {
      'content-type': 'text/markdown',
      'content-length': Buffer.byteLength(body),
      expect: '100-continue',
    })
    expect((await asked.response()).status).toBe(100)
    asked.write(body)
    await waitFor(() => (asked.received().includes('HTTP/1.1 201') ? true : undefined))
    expect(t.ws.read('memory/asked.md')).toBe(body)
    asked.destroy()
  })

  it('takes a file write and a flush of a file’s worth, above the JSON routes’ limit', async () => {
    await listening()
    const markdown = `${'- a note about the billing service and its Postgres database\n'.repeat(1092)}`.slice(
      0,
      FILE_BYTES,
    )
    expect(Buffer.byteLength(markdown)).toBe(FILE_BYTES)
    expect((await send('PUT', '/files/memory/full.md', markdown, 'text/markdown')).status).toBe(201)
    // As JSON the escaping and the {"content": …} wrapper count against the same limit.
    const asJson = await send('PUT', '/files/memory/full.md', JSON.stringify({ content: markdown }))
    expect(asJson.status).toBe(413)
    const notes = JSON.stringify({ content: markdown.slice(0, 3 * JSON_BYTES) })
    expect(Buffer.byteLength(notes)).toBeGreaterThan(JSON_BYTES)
    expect((await send('POST', '/flush', notes)).status).toBe(200)
    expect((await send('POST', '/search', JSON.stringify({ query: 'x'.repeat(4000) }))).status).toBe(200)
  })
})

describe('request-body bytes in flight', () => {
  // Shares between agents and the 503 past the process's budget: admission.slow-bodies.test.ts.
  it('counts a body by the bytes that arrived, and gives them back when its upload is abandoned', async () => {
    await listening()
    const stalled = rawSocket(port)
    const start = '- the start of a body that never ends\n'.repeat(25)
    stalled.send('PUT', '/files/memory/slow.md', { 'content-type': 'text/markdown', 'content-length': 40_000 }, start)
    await waitFor(async () => ((await bodyBytesInFlight()) === Buffer.byteLength(start) ? true : undefined))

    // 40,000 declared and 36,000 more would not fit 64 KiB; what arrived does.
    const body = '- a note\n'.repeat(4000)
    expect((await send('PUT', '/files/memory/other.md', body, 'text/markdown')).status).toBe(201)

    stalled.destroy()
    await waitFor(async () => ((await bodyBytesInFlight()) === 0 ? true : undefined))
  })

  it('refuses a declared length past what the agent may still hold with 429 before the body is sent', async () => {
    await listening()
    const stalled = rawSocket(port)
    const start = '- a large body on its way\n'.repeat(1500)
    stalled.send('PUT', '/files/memory/slow.md', { 'content-type': 'text/markdown', 'content-length': 60_000 }, start)
    await waitFor(async () => ((await bodyBytesInFlight()) === Buffer.byteLength(start) ? true : undefined))

    const declared = rawSocket(port)
    declared.send('PUT', '/files/memory/other.md', { 'content-type': 'text/markdown', 'content-length': 30_000 })
    const res = await declared.response()
    expect(res.status).toBe(429)
    expect(res.headers['retry-after']).toBe('1')
    expect(res.headers.connection).toBe('close')
    expect(JSON.parse(res.body)).toMatchObject({ code: 'AGENT_BUSY', message: /MNEMO_MAX_BODY_BYTES_IN_FLIGHT/ })
    await declared.closed
    stalled.destroy()
  })

  it('counts a chunked body as it arrives, and gives it back when the body ends', async () => {
    await listening()
    const chunked = rawSocket(port)
    chunked.send('PUT', '/files/memory/chunked.md', { 'content-type': 'text/markdown', 'transfer-encoding': 'chunked' })
    const text = '- sent in chunks\n'
    chunked.writeChunk(text)
    await waitFor(async () => ((await bodyBytesInFlight()) === Buffer.byteLength(text) ? true : undefined))
    expect((await send('POST', '/search', JSON.stringify({ query: 'note' }))).status).toBe(200)
    chunked.writeChunk(text)
    chunked.write('0\r\n\r\n')
    expect((await chunked.response()).status).toBe(201)
    await waitFor(async () => ((await bodyBytesInFlight()) === 0 ? true : undefined))
    chunked.destroy()
  })
})
