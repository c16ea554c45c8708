/**
 * Which routes act for an agent. The others — liveness and readiness probes, metrics and
 * the API docs — never wait for an agent's slot and are never shed under load, so an
 * orchestrator and a Prometheus can still see an overloaded service.
 */
const OPS_ROUTES = new Set(['/health', '/ready', '/metrics', '/openapi.json'])
const DOCS_ROUTE = /^\/docs(\/.*)?$/

/** Whether a route template is an ops route (undefined: no route matched, a 404). */
export function isOpsRoute(route: string | undefined): boolean {
  return route !== undefined && (OPS_ROUTES.has(route) || DOCS_ROUTE.test(route))
}
