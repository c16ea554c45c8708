import { describe, expect, it } from 'vitest'
import { defaultHttpDeps, errorBodyDetail } from './http-json.js'

const KEY = 'sk-live-0123456789abcdef'

describe('errorBodyDetail', () => {
  it.each([
    ['{"error": "model not loaded"}', '{"error": "model not loaded"}'],
    ['line one\n\n   line two', 'line one line two'],
    [`{"error":"Incorrect API key provided: ${KEY}"}`, '{"error":"Incorrect API key provided: [redacted]"}'],
    ['the key sk-proj-AbCdEf123456 is revoked', 'the key [redacted] is revoked'],
    ['sent Authorization: Bearer abc.def.ghi', 'sent Authorization: [redacted]'],
  ])('%j → %j', (body, detail) => {
    expect(errorBodyDetail(body, { authorization: `Bearer ${KEY}` })).toBe(detail)
  })

  it('keeps at most 200 characters', () => {
    expect(errorBodyDetail('x'.repeat(5000))).toHaveLength(200)
  })
})

describe('defaultHttpDeps.sleep', () => {
  it('rejects with the abort reason once its signal aborts, as an aborted fetch does', async () => {
    const controller = new AbortController()
    const reason = new Error('the service is shutting down')
    const sleeping = defaultHttpDeps.sleep(60_000, controller.signal)
    controller.abort(reason)
    await expect(sleeping).rejects.toBe(reason)
  })

  it('rejects at once when its signal has already aborted', async () => {
    const reason = new Error('cancelled')
    await expect(defaultHttpDeps.sleep(60_000, AbortSignal.abort(reason))).rejects.toBe(reason)
  })
})
