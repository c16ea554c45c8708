/**
 * Sends a request with the path exactly as written. app.inject (like any WHATWG URL parser)
 * resolves `..` and `%2e%2e` before routing, so traversal must be tried over a real socket.
 */
import http from 'node:http'

export function rawRequest(
  port: number,
  rawPath: string,
  opts: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: rawPath, method: opts.method ?? 'GET', headers: opts.headers },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => (body += c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      },
    )
    req.on('error', reject)
    req.end(opts.body)
  })
}
