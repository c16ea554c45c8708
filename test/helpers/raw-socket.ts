/**
 * A raw TCP connection to a listening app, for what fetch cannot do: send a request's headers
 * and only part of its body (or none), stall, or vanish mid-request.
 */
import net from 'node:net'
import { waitFor } from './wait-for.js'

export type RawResponse = { status: number; headers: Record<string, string>; body: string }

/** The first whole HTTP response in `data`, or undefined while it is incomplete. */
function parseResponse(data: string): RawResponse | undefined {
  const end = data.indexOf('\r\n\r\n')
  if (end < 0) return undefined
  const [statusLine, ...lines] = data.slice(0, end).split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const body = data.slice(end + 4)
  const length = Number(headers['content-length'] ?? 0)
  if (Buffer.byteLength(body) < length) return undefined
  return { status: Number(statusLine?.split(' ')[1]), headers, body }
}

export function rawSocket(port: number) {
  const socket = net.connect(port, '127.0.0.1')
  let data = ''
  socket.setEncoding('utf8')
  socket.on('data', (chunk: string) => (data += chunk))
  // A reset after the server answered and closed is expected here.
  socket.on('error', () => {})
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()))
  return {
    /** Sends a request line and headers (and, if given, the start of a body). */
    send(method: string, path: string, headers: Record<string, string | number>, body = ''): void {
      const head = Object.entries({ host: 'localhost', ...headers })
        .map(([k, v]) => `${k}: ${v}`)
        .join('\r\n')
      socket.write(`${method} ${path} HTTP/1.1\r\n${head}\r\n\r\n${body}`)
    },
    write: (chunk: string) => socket.write(chunk),
    /** Writes one chunk of a `transfer-encoding: chunked` body. */
    writeChunk: (data: string) => socket.write(`${Buffer.byteLength(data).toString(16)}\r\n${data}\r\n`),
    /** Everything the server sent so far (several responses, a 100 Continue before one). */
    received: () => data,
    /** The response, once a whole one has arrived. */
    response: (timeoutMs = 10_000) => waitFor(() => parseResponse(data), timeoutMs),
    /** Closes the connection at once, as a client that gives up does. */
    destroy: () => socket.destroy(),
    closed,
  }
}
