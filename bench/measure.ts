/** The two measurements every benchmark scenario takes: sequential latency and throughput. */
import autocannon from 'autocannon'
import type { createClient } from './http-client.js'
import { percentile } from './stats.js'

/** p50 and p99 of `requests` sequential searches, once per run; `check` sees every answer. */
export async function measureLatency(
  client: ReturnType<typeof createClient>,
  queries: readonly string[],
  opts: {
    runs: number
    requests: number
    check?: (body: string, run: number, i: number) => void
    /** Fields every search sends besides its query (`mode`, …). */
    fields?: Record<string, unknown>
  },
): Promise<{ p50: number[]; p99: number[] }> {
  const p50: number[] = []
  const p99: number[] = []
  for (let run = 0; run < opts.runs; run++) {
    const samples: number[] = []
    for (let i = 0; i < opts.requests; i++) {
      const res = await client.request('POST', '/search', { ...opts.fields, query: queries[i % queries.length] })
      if (res.status !== 200) throw new Error(`search failed: ${res.body}`)
      opts.check?.(res.body, run, i)
      samples.push(res.ms)
    }
    p50.push(percentile(samples, 50))
    p99.push(percentile(samples, 99))
  }
  return { p50, p99 }
}

/**
 * Answered searches per second with 16 concurrent connections, once per run, and the
 * answers that were not 2xx (by status, all runs): a refusal (503 OVERLOADED) is counted,
 * not fatal, so an engine that sheds load still gets its numbers. A connection error fails.
 */
export async function measureThroughput(
  baseUrl: string,
  queries: readonly string[],
  opts: { runs: number; durationSec: number },
) {
  const rps: number[] = []
  const refused: Record<string, number> = {}
  for (let run = 0; run < opts.runs; run++) {
    const result = await autocannon({
      url: baseUrl,
      connections: 16,
      duration: opts.durationSec,
      requests: queries.map((query) => ({
        method: 'POST' as const,
        path: '/search',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      })),
    })
    if (result.errors > 0) throw new Error(`throughput run had ${result.errors} connection errors or timeouts`)
    for (const [status, { count = 0 }] of Object.entries(result.statusCodeStats ?? {}))
      if (!status.startsWith('2')) refused[status] = (refused[status] ?? 0) + count
    rps.push(result['2xx'] / result.duration)
  }
  return { rps, refused }
}

/** Refused answers for a table: "" when none, else " (503 × 61)". */
export const refusedNote = (refused: Record<string, number>) =>
  Object.keys(refused).length === 0
    ? ''
    : ` (${Object.entries(refused)
        .map(([status, n]) => `${status} × ${n}`)
        .join(', ')})`
