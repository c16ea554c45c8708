/**
 * Which routes act for an agent. The others — liveness and readiness probes, metrics and
 * the API docs — never wait for an agent's slot and are never shed under load, so an
 * orchestrator and a Prometheus can still see an overloaded service. Stream routes act for
 * an agent and are shed like any request when they start, but take no slot: a stream stays
 * open for hours and would hold it all along (they have caps of their own).
 */
const OPS_ROUTES = new Set(['/health', '/ready', '/metrics', '/openapi.json'])
const DOCS_ROUTE = /^\/docs(\/.*)?$/
const STREAM_ROUTES = new Set(['/events'])

/** Whether a route template is an ops route (undefined: no route matched, a 404). */
export function isOpsRoute(route: string | undefined): boolean {
  return route !== undefined && (OPS_ROUTES.has(route) || DOCS_ROUTE.test(route))
}

/** Whether a request to a route template waits for (and holds) a slot of its agent. */
export function takesAgentSlot(route: string | undefined): boolean {
  return route !== undefined && !isOpsRoute(route) && !STREAM_ROUTES.has(route)
}
