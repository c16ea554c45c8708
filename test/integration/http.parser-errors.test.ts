/**
 * Requests Node's HTTP parser refuses get the one error shape with a code and request id,
 * over a real socket (app.inject never reaches the parser).
 */
import net from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'

let t: TestApp
afterEach(() => t.close())

/** Writes raw bytes to the server and reads the whole answer. */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes))
    let answer = ''
    socket.setEncoding('utf8')
    socket.on('data', (c: string) => (answer += c))
    socket.on('end', () => resolve(answer))
    socket.on('error', reject)
  })
}

describe('requests the HTTP parser refuses', () => {
  it.each([
    ['control bytes in the URL', 'GET /files/a\u0001b HTTP/1.1\r\nHost: localhost\r\n\r\n', 400, 'VALIDATION_FAILED'],
    [
      'a malformed Content-Length',
      'POST /search HTTP/1.1\r\nHost: localhost\r\nContent-Length: ten\r\n\r\n{}',
      400,
      'VALIDATION_FAILED',
    ],
    [
      'headers over the size limit',
      `GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      'HEADERS_TOO_LARGE',
    ],
  ])('answer %s in the one error shape', async (_name, bytes, status, code) => {
    t = await buildTestApp({ sync: false })
    await t.app.listen({ host: '127.0.0.1', port: 0 })
    const { port } = t.app.server.address() as net.AddressInfo
    const answer = await rawExchange(port, bytes)
    const [head, body] = answer.split('\r\n\r\n')
    expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `))
    expect(head).toMatch(/x-request-id: [0-9a-f-]{36}/)
    expect(JSON.parse(body ?? '')).toEqual({
      statusCode: status,
      code,
      error: expect.any(String),
      message: expect.any(String),
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    })
  })
})
