import { describe, expect, it } from 'vitest'
import { useTestApp } from '../helpers/build-test-app.js'

type Line = { level: number; msg: string; url?: string; statusCode?: number }
const DEBUG = 20
const INFO = 30

describe('request log lines', () => {
  it('logs probes at debug, other requests at info, and never a credential sent in a query string', async () => {
    const logs: string[] = []
    const t = await useTestApp({ corpus: true, logs })
    // Unknown query parameters are refused (400), and still logged.
    for (const url of ['/health', '/ready', '/files?token=supersecret-123&x=1', '/files/MEMORY.md?api_key=k-999']) {
      await t.app.inject({ method: 'GET', url })
    }
    const lines = logs.map((l) => JSON.parse(l) as Line).filter((l) => l.msg === 'request')
    const levelOf = (prefix: string) => lines.find((l) => l.url?.startsWith(prefix))?.level
    expect(levelOf('/health')).toBe(DEBUG)
    expect(levelOf('/ready')).toBe(DEBUG)
    expect(levelOf('/files?')).toBe(INFO)
    expect(lines.map((l) => l.url)).toContain('/files?token=[redacted]&x=1')
    expect(lines.map((l) => l.url)).toContain('/files/MEMORY.md?api_key=[redacted]')
    const all = logs.join('\n')
    expect(all).not.toContain('supersecret-123')
    expect(all).not.toContain('k-999')
  })
})
