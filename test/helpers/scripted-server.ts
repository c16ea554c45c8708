/**
 * A real HTTP server on 127.0.0.1 that answers from a script, for testing providers over
 * their wire format. Each request takes the next scripted answer (the last one repeats) and
 * is recorded with its headers and parsed JSON body.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export type ScriptedAnswer = {
  status?: number
  headers?: Record<string, string>
  /** JSON-serialised unless it is a string (sent as is). */
  body?: unknown
  /** Waits this long before answering, in ms. */
  delayMs?: number
  /** Builds the body from the request's JSON body. */
  reply?: (request: unknown) => unknown
}

export type Recorded = { url: string; headers: http.IncomingHttpHeaders; body: unknown }

/** A TCP port on 127.0.0.1 that nothing listens on now (a server that is down). */
export async function freePort(): Promise<number> {
  const probe = http.createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as AddressInfo
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  return port
}

/** `port`: listen there (a server that comes up where a client already looks); default any free one. */
export async function startScriptedServer(script: ScriptedAnswer[], opts: { port?: number } = {}) {
  const requests: Recorded[] = []
  const server = http.createServer((req, res) => {
    let raw = ''
    req.on('data', (c: Buffer) => (raw += c.toString()))
    req.on('end', () => {
      const body: unknown = raw ? JSON.parse(raw) : undefined
      requests.push({ url: req.url ?? '', headers: req.headers, body })
      const answer = script[Math.min(requests.length - 1, script.length - 1)] ?? {}
      const send = () => {
        if (res.destroyed) return
        const payload = answer.reply ? answer.reply(body) : answer.body
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers })
        res.end(typeof payload === 'string' ? payload : JSON.stringify(payload ?? {}))
      }
      if (answer.delayMs) setTimeout(send, answer.delayMs)
      else send()
    })
  })
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** An OpenAI embeddings answer: one `dims`-long vector per input text. */
export function embeddingsReply(dims: number, opts: { tokensPerText?: number } = {}) {
  return (request: unknown) => {
    const input = (request as { input: string[] }).input
    return {
      object: 'list',
      data: input.map((text, index) => ({
        object: 'embedding',
        index,
        embedding: Array.from({ length: dims }, (_, d) => ((text.length + d * 7) % 11) + 1),
      })),
      usage: {
        prompt_tokens: input.length * (opts.tokensPerText ?? 3),
        total_tokens: input.length * (opts.tokensPerText ?? 3),
      },
    }
  }
}
