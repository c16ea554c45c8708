/**
 * Container HEALTHCHECK (and CI's probe of the built service): exits 0 when GET /ready on
 * this machine answers 200 within the timeout, 1 otherwise; `node dist/healthcheck.js
 * /health` probes liveness instead. /ready needs no token. A process entry like main.ts.
 */
import { loadConfig } from './config/load-config.js'

/** How long the probe waits for an answer, in ms. */
const TIMEOUT_MS = 2000

const { server } = loadConfig(process.env, process.cwd())
const host = server.host === '0.0.0.0' || server.host === '::' ? '127.0.0.1' : server.host
const route = process.argv[2] === '/health' ? '/health' : '/ready'
fetch(`http://${host.includes(':') ? `[${host}]` : host}:${server.port}${route}`, {
  signal: AbortSignal.timeout(TIMEOUT_MS),
}).then(
  (res) => process.exit(res.ok ? 0 : 1),
  () => process.exit(1),
)
