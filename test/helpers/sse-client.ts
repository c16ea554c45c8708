/**
 * A Server-Sent Events reader over a real socket (app.inject would wait for the end of an
 * endless response): parses frames as they arrive and lets a test wait for the next event
 * matching a condition.
 */
import http from 'node:http'

export type SseEvent = { id?: string; event: string; data: Record<string, unknown> }

export type SseClient = {
  status: number
  headers: http.IncomingHttpHeaders
  /** Every event so far, in order. */
  events: SseEvent[]
  /** Comment lines so far (heartbeats). */
  comments: string[]
  /** Resolves with the first event from index `from` on that matches, waiting for it. */
  next(match: (e: SseEvent) => boolean, from?: number): Promise<SseEvent>
  /** Resolves when the server ends the stream. */
  ended: Promise<void>
  /** The body of a refused (non-200) response. */
  body(): Promise<string>
  close(): void
}

export function openSse(port: number, headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/events', headers }, (res) => {
      res.setEncoding('utf8')
      const events: SseEvent[] = []
      const comments: string[] = []
      const waiters = new Set<() => void>()
      let buffer = ''
      let raw = ''
      const ended = new Promise<void>((done) => res.once('close', () => done()))
      res.on('data', (chunk: string) => {
        raw += chunk
        buffer += chunk
        let cut: number
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, cut)
          buffer = buffer.slice(cut + 2)
          const fields: Record<string, string> = {}
          for (const line of frame.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim())
            else {
              const at = line.indexOf(':')
              fields[line.slice(0, at)] = line.slice(at + 1).trimStart()
            }
          }
          if (fields.data !== undefined) {
            events.push({
              ...(fields.id !== undefined && { id: fields.id }),
              event: fields.event ?? 'message',
              data: JSON.parse(fields.data) as Record<string, unknown>,
            })
          }
        }
        for (const w of [...waiters]) w()
      })
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        comments,
        ended,
        next(match, from = 0) {
          return new Promise((found, fail) => {
            const check = () => {
              const hit = events.slice(from).find(match)
              if (hit) {
                waiters.delete(check)
                found(hit)
              }
            }
            waiters.add(check)
            void ended.then(() => {
              check()
              if (waiters.delete(check)) fail(new Error(`the stream ended first; events: ${JSON.stringify(events)}`))
            })
            check()
          })
        },
        body: () => ended.then(() => raw),
        close: () => req.destroy(),
      })
    })
    req.on('error', reject)
  })
}
