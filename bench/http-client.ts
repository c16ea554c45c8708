/** A minimal keep-alive JSON client for latency runs (fetch adds its own overhead). */
import http from 'node:http'

export function createClient(baseUrl: string) {
  const url = new URL(baseUrl)
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  function request(
    method: string,
    path: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
  ): Promise<{ status: number; body: string; ms: number }> {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const started = process.hrtime.bigint()
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path,
          method,
          agent,
          headers: {
            ...extraHeaders,
            ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
          },
        },
        (res) => {
          let text = ''
          res.setEncoding('utf8')
          res.on('data', (c: string) => (text += c))
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: text, ms: Number(process.hrtime.bigint() - started) / 1e6 }),
          )
        },
      )
      req.on('error', reject)
      req.end(payload)
    })
  }
  /**
   * `POST /index?wait=true`, asked again while the service sheds it (503: a service just
   * started, or busy merging a big index, on a loaded machine; every 2 s, at most 10 times).
   */
  async function indexAll(): Promise<{ status: number; body: string; ms: number }> {
    let res = await request('POST', '/index?wait=true', {})
    for (let retry = 0; res.status === 503 && retry < 10; retry++) {
      await new Promise((r) => setTimeout(r, 2000))
      res = await request('POST', '/index?wait=true', {})
    }
    if (res.status !== 200) throw new Error(`index failed: ${res.status} ${res.body}`)
    return res
  }
  return { request, indexAll, close: () => agent.destroy() }
}
