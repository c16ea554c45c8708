/**
 * Logs every search a request makes through the gateway (REST and MCP alike) in the search
 * log (search-recorder.ts): what was asked, for which agent and user, how it was answered.
 * A search that failed is not logged (its error is the answer, and metrics count it).
 */
import type { AgentGateway } from '../agents/agent-gateway.js'
import type { Actor } from '../shared/agent-id.js'
import type { SearchRecorder } from './search-recorder.js'

/** Who searched, with the id of the request that did (REST and MCP callers carry it). */
export type TracedActor = Actor & { requestId?: string }

export function logSearches(
  gateway: AgentGateway,
  recorder: Pick<SearchRecorder, 'record'>,
  now: () => number = Date.now,
): AgentGateway {
  return {
    ...gateway,
    async search(who: TracedActor, req) {
      const res = await gateway.search(who, req)
      if (who.requestId !== undefined) {
        recorder.record({
          requestId: who.requestId,
          atMs: now(),
          agent: who.agent,
          user: who.user,
          query: req.query,
          mode: res.mode,
          results: res.results.length,
          bestScore: res.results[0]?.score ?? res.abstained?.bestScore ?? null,
          abstained: res.abstained !== undefined,
          latencyMs: res.timingsMs.total,
          degraded: Object.keys(res.degraded ?? {}),
        })
        return { ...res, requestId: who.requestId }
      }
      return res
    },
  }
}
