/**
 * buildApp: the Fastify instance with zod validation and serialization, the error table,
 * auth, OpenAPI and the route plugins, registered explicitly. No listen, no process access.
 */
import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod'
import type { Config } from './config/config.js'
import type { Container } from './wiring/container.js'
import { browserPolicy } from './http/browser-guard.js'
import { registerAdmission } from './http/plugins/admission.js'
import { registerAuth } from './http/plugins/auth.js'
import { registerBodyIntake } from './http/plugins/body-intake.js'
import { registerLoadShedding } from './http/plugins/load-shedding.js'
import { agentsRoutes } from './http/routes/agents.routes.js'
import { consoleRoutes } from './http/routes/console.routes.js'
import { CONSOLE_DIR } from './console-dir.js'
import { searchesRoutes } from './http/routes/searches.routes.js'
import { eventsRoutes } from './http/routes/events.routes.js'
import { mcpRoutes } from './mcp/mcp.routes.js'
import { MAX_RESULTS } from './http/schemas/search.schema.js'
import { replyToClientError } from './http/plugins/client-errors.js'
import { registerErrorHandler, replyWithError } from './http/plugins/error-handler.js'
import { createRequestLogController } from './http/plugins/request-log.js'
import { registerHttpMetrics } from './http/plugins/http-metrics.js'
import { registerSwagger } from './http/plugins/swagger.js'
import { filesRoutes } from './http/routes/files.routes.js'
import { flushRoutes } from './http/routes/flush.routes.js'
import { entriesRoutes } from './http/routes/entries.routes.js'
import { healthRoutes } from './http/routes/health.routes.js'
import { indexingRoutes } from './http/routes/indexing.routes.js'
import { oauthDiscoveryRoutes } from './http/routes/oauth-discovery.routes.js'
import { searchRoutes } from './http/routes/search.routes.js'
import { transferRoutes } from './http/routes/transfer.routes.js'
import { importBodyLimit } from './transfer/transfer-config.js'
import type { Logger } from './shared/logger.js'

/**
 * How much later than MNEMO_REQUEST_TIMEOUT_MS Node's own request timeout is, in ms: Node
 * counts from the first byte of the headers and the meter from the request's routing, a
 * little later; a second covers headers sent at any reasonable pace.
 */
const NODE_REQUEST_TIMEOUT_GRACE_MS = 1000
/** How often Node looks for requests past their time limits, in ms (Node's default: 30,000). */
const NODE_TIMEOUT_CHECK_MS = 1000

/** A client-supplied x-request-id is kept when it looks like an id, so logs can be joined. */
const REQUEST_ID = /^[\w.:-]{1,128}$/

/**
 * zod validates and serializes every route. Given as the compiler factories rather than with
 * setValidatorCompiler, Fastify never loads its default ajv and fast-json-stringify compilers
 * (about 65 ms of start-up: BENCHMARKS.md, "Cold start"). Fastify types these factories for
 * ajv's schemas only, hence the cast; setValidatorCompiler installs the same functions.
 */
const ZOD_COMPILERS = {
  buildValidator: () => validatorCompiler,
  buildSerializer: () => serializerCompiler,
} as unknown as NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']

export type AppDeps = {
  config: Config
  logger: Logger
  container: Pick<Container, 'services' | 'close'>
  /** The built web console (default dist/console: console-dir.ts). */
  consoleDir?: string
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, container } = deps
  const startedAt = performance.now()
  const app = Fastify({
    // pino's Logger and Fastify's logger type differ only in generics; without the cast the
    // instance is typed with pino's Logger and the route plugins (typed for the base logger)
    // do not fit.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: config.server.bodyLimitBytes,
    // Node's own limit on receiving a request stays as the backstop for what the body meter
    // (body-intake.ts) does not see — slow headers — a little later than the meter's, so a
    // slow body is answered by the meter, with its request id. (When it fires,
    // client-errors.ts answers 408 in the one error shape too.)
    requestTimeout: config.server.requestTimeoutMs + NODE_REQUEST_TIMEOUT_GRACE_MS,
    // Node looks for requests past that limit (and past headersTimeout) every 30 s by
    // default, so one could outlive it by 30 s; once a second, it is never late by more.
    http: { connectionsCheckingInterval: NODE_TIMEOUT_CHECK_MS },
    logController: createRequestLogController(),
    // Malformed URLs (bad percent-encoding) are answered by Fastify before routing; this
    // keeps them in the one error shape.
    frameworkErrors: (err, request, reply) => void replyWithError(err, request, reply),
    clientErrorHandler: (err, socket) => replyToClientError(err, socket, deps.logger),
    schemaController: { compilersFactory: ZOD_COMPILERS },
    genReqId: (req) => {
      const given = req.headers['x-request-id']
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID()
    },
  })
  registerErrorHandler(app)
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id)
  })
  const { services } = container
  // Before auth: an overloaded process refuses work as cheaply as it can.
  await registerLoadShedding(app, { admission: services.admission, metrics: services.metrics, log: deps.logger })
  const browsers = browserPolicy({
    listenHost: config.server.host,
    allowedHosts: config.server.allowedHosts,
    allowedOrigins: config.server.allowedOrigins,
  })
  registerAuth(app, {
    auth: services.auth,
    docsPublic: config.server.docsPublic,
    metricsPublic: config.server.metricsPublic,
    browsers,
  })
  registerAdmission(app, { admission: services.admission, metrics: services.metrics })
  registerBodyIntake(app, {
    admission: services.admission,
    metrics: services.metrics,
    requestTimeoutMs: config.server.requestTimeoutMs,
    idleTimeoutMs: config.server.bodyIdleTimeoutMs,
  })
  await registerSwagger(app)
  registerHttpMetrics(app, services.metrics, { metricsPublic: config.server.metricsPublic })

  const { gateway } = services
  // Each route takes the body it can use (docs/decisions.md, "Body limits"): a file write or
  // a flush what a file may hold, the JSON routes MNEMO_BODY_LIMIT_BYTES (the default).
  const fileBodyLimitBytes = config.index.maxFileBytes
  await app.register(searchRoutes, { gateway, foreground: services.foreground })
  await app.register(filesRoutes, { gateway, writeBodyLimitBytes: fileBodyLimitBytes })
  await app.register(flushRoutes, { gateway, bodyLimitBytes: fileBodyLimitBytes })
  await app.register(entriesRoutes, { gateway, bodyLimitBytes: fileBodyLimitBytes })
  await app.register(indexingRoutes, { gateway })
  await app.register(agentsRoutes, { gateway })
  await app.register(searchesRoutes, { searchLog: services.searchLogService })
  await app.register(eventsRoutes, { events: services.events })
  await app.register(transferRoutes, {
    transfer: services.transfer,
    importBodyLimitBytes: importBodyLimit(config),
    writerFor: gateway.writerFor,
  })
  await app.register(mcpRoutes, {
    gateway,
    foreground: services.foreground,
    searchLog: services.searchLogService,
    bodyLimitBytes: config.server.bodyLimitBytes,
    maxBatch: config.admission.mcpMaxBatch,
    budget: {
      results: MAX_RESULTS,
      snippetBytes: config.search.snippetBytesPerSearch,
      defaultResults: config.search.maxResults,
    },
  })
  await app.register(healthRoutes, { readiness: services.readiness, startedAt })
  await app.register(oauthDiscoveryRoutes)
  if (config.server.console) await app.register(consoleRoutes, { dir: deps.consoleDir ?? CONSOLE_DIR })
  app.addHook('onClose', async () => container.close())
  return app
}
