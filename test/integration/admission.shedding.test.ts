/**
 * The load shedder through the API (issue 16): under pressure every agent-acting route gets
 * 503 OVERLOADED with Retry-After in the one error shape, while /health, /ready and /metrics
 * answer as usual; when the pressure is gone requests are served again.
 */
import fs from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'
import { waitFor } from '../helpers/wait-for.js'

let t: TestApp
afterEach(async () => {
  await t.close()
})

const search = () => t.app.inject({ method: 'POST', url: '/search', payload: { query: 'qwen-max' } })

describe('load shedding', () => {
  it('refuses work with 503 OVERLOADED while the pressure probe says so, keeps the probes and metrics open, and recovers', async () => {
    let overloaded = false
    const logs: string[] = []
    t = await buildTestApp({ corpus: true, logs, overrides: { pressureProbe: () => overloaded } })
    expect((await search()).statusCode).toBe(200)

    overloaded = true
    const shed = await waitFor(async () => {
      const res = await search()
      return res.statusCode === 503 ? res : undefined
    })
    expect(shed.headers['retry-after']).toBe('2')
    expect(shed.json()).toEqual({
      statusCode: 503,
      code: 'OVERLOADED',
      error: 'Service Unavailable',
      message: 'The service is overloaded (healthCheck); retry after 2 s',
      requestId: shed.headers['x-request-id'],
    })
    for (const [method, url] of [
      ['PUT', '/files/memory/new.md'],
      ['POST', '/flush'],
      ['GET', '/index'],
      ['POST', '/mcp'],
    ] as const) {
      const res = await t.app.inject({ method, url, payload: { content: '- note' } })
      expect([url, res.statusCode, res.json<{ code: string }>().code]).toEqual([url, 503, 'OVERLOADED'])
    }
    expect(fs.existsSync(t.ws.abs('memory/new.md'))).toBe(false)
    expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200)
    expect((await t.app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200)
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' })
    expect(metrics.statusCode).toBe(200)
    expect(metrics.body).toMatch(/^mnemo_requests_rejected_total\{reason="overloaded"\} [1-9]/m)

    overloaded = false
    await waitFor(async () => ((await search()).statusCode === 200 ? true : undefined))
    // A shed request is answered once and goes no further (no second reply, no handler).
    expect(logs.filter((line) => /already sent|FST_ERR/i.test(line))).toEqual([])
    expect(logs.filter((line) => line.includes('refusing requests with 503 OVERLOADED'))).toHaveLength(1)
  })

  it('sheds by event-loop delay past MNEMO_SHED_EVENT_LOOP_DELAY_MS while /health still answers', async () => {
    t = await buildTestApp({ corpus: true, sync: false, env: { MNEMO_SHED_EVENT_LOOP_DELAY_MS: '1' } })
    /** Holds the event loop (the app runs in this process), as a runaway synchronous job would. */
    const block = (ms: number) => {
      const until = performance.now() + ms
      while (performance.now() < until);
    }
    const shed = await waitFor(async () => {
      block(300)
      const res = await search()
      return res.statusCode === 503 ? res : undefined
    })
    expect(shed.json()).toMatchObject({ code: 'OVERLOADED', message: expect.stringContaining('eventLoopDelay') })
    expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200)
  })

  it('sheds by heap in use past MNEMO_SHED_HEAP_FRACTION of the heap limit', async () => {
    // A threshold below any real heap: the first sample finds it exceeded.
    t = await buildTestApp({ corpus: true, sync: false, env: { MNEMO_SHED_HEAP_FRACTION: '0.000001' } })
    const shed = await waitFor(async () => {
      const res = await search()
      return res.statusCode === 503 ? res : undefined
    })
    expect(shed.json()).toMatchObject({ code: 'OVERLOADED', message: expect.stringContaining('heapUsedBytes') })
    expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200)
  })
})
