/**
 * Counts what agents do through the gateway, so REST and MCP calls are measured alike:
 * every search (stages, mode, degraded stages, provider tokens, failures) and every flush.
 */
import type { AgentGateway } from '../agents/agent-gateway.js'
import type { Metrics } from './metrics.js'

export function instrumentGateway(gateway: AgentGateway, metrics: Metrics): AgentGateway {
  return {
    ...gateway,
    async search(who, req) {
      try {
        const res = await gateway.search(who, req)
        metrics.observeSearch(res)
        return res
      } catch (err) {
        metrics.searchFailed()
        throw err
      }
    },
    async flush(who, req, writer) {
      const res = await gateway.flush(who, req, writer)
      if ('replayed' in res) metrics.flushed(res.replayed)
      return res
    },
  }
}
