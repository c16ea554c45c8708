import { describe, expect, it } from 'vitest'
import { createLogger } from '../shared/logger.js'
import type { SearchLog, SearchLogEntry } from '../store/search-log-port.js'
import { createSearchRecorder } from './search-recorder.js'

const silent = createLogger({ level: 'silent' })
const entry = (n: number): SearchLogEntry => ({
  requestId: `r${n}`,
  atMs: n,
  agent: 'ops',
  user: null,
  query: `q${n}`,
  mode: 'keyword',
  results: 1,
  bestScore: 0.5,
  abstained: false,
  latencyMs: 1,
  degraded: [],
})

/** A store that keeps what it is given, and fails or stalls when told to. */
function fakeStore(opts: { fail?: boolean; stall?: Promise<void> } = {}) {
  const rows: SearchLogEntry[] = []
  const store: SearchLog = {
    append: async (entries) => {
      await opts.stall
      if (opts.fail) throw new Error('disk full')
      rows.push(...entries)
    },
    list: async () => rows.map((r) => ({ ...r, feedback: null })),
    feedback: async () => true,
    prune: async () => 0,
    close: async () => undefined,
  }
  return { rows, store }
}

describe('the search recorder', () => {
  it('writes entries in order and lists one just recorded', async () => {
    const { rows, store } = fakeStore()
    const outcomes: string[] = []
    const r = createSearchRecorder({
      store,
      settings: { retentionDays: 30, maxPerAgent: 10 },
      log: silent,
      onOutcome: (o, n) => outcomes.push(`${o}:${n}`),
    })
    r.record(entry(1))
    r.record(entry(2))
    expect(rows).toEqual([])
    expect((await r.list({ limit: 10 })).map((e) => e.requestId)).toEqual(['r1', 'r2'])
    expect(outcomes).toEqual(['written:2'])
    await r.close()
  })

  it('drops and counts entries past its bound while the engine stalls, and never throws', async () => {
    let release = () => undefined as void
    const { rows, store } = fakeStore({ stall: new Promise<void>((done) => (release = done)) })
    const outcomes: string[] = []
    const r = createSearchRecorder({
      store,
      settings: { retentionDays: 30, maxPerAgent: 10 },
      log: silent,
      maxBuffered: 3,
      onOutcome: (o, n) => outcomes.push(`${o}:${n}`),
    })
    for (let i = 0; i < 5; i++) expect(() => r.record(entry(i))).not.toThrow()
    expect(outcomes).toEqual(['dropped:1', 'dropped:1'])
    release()
    await r.close()
    expect(rows.map((e) => e.requestId)).toEqual(['r0', 'r1', 'r2'])
  })

  it('counts a failed write and goes on logging', async () => {
    const failing = fakeStore({ fail: true })
    const outcomes: string[] = []
    const r = createSearchRecorder({
      store: failing.store,
      settings: { retentionDays: 30, maxPerAgent: 10 },
      log: silent,
      onOutcome: (o, n) => outcomes.push(`${o}:${n}`),
    })
    r.record(entry(1))
    await r.list({ limit: 1 })
    r.record(entry(2))
    await r.close()
    expect(outcomes).toEqual(['failed:1', 'failed:1'])
  })
})
