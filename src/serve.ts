/**
 * The service process (started by main.ts once the Node.js version is checked): config
 * from the environment, logger, container, app, listen, graceful close. With main.ts the only
 * module besides config/ that touches `process`.
 */
import os from 'node:os'
import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.js'
import { loadConfig } from './config/load-config.js'
import { ConfigError } from './shared/config-error.js'
import { openWithoutToken } from './config/loopback.js'
import { unknownVariables, unknownVariableWarning } from './config/unknown-variables.js'
import { createContainer } from './wiring/container.js'
import { probeEmbeddingDims } from './providers/probe-dims.js'
import { workspaceAccess } from './files/workspace-access.js'
import { ensureWorkspace } from './files/workspace-init.js'
import { createLogger } from './shared/logger.js'
import { lockDataDir } from './store/data-dir-lock.js'

/** Graceful shutdown budget before the process exits anyway, in ms. */
const SHUTDOWN_TIMEOUT_MS = 10_000
/** How often idle keep-alive connections are closed during shutdown, in ms. */
const IDLE_SWEEP_MS = 50

async function main(): Promise<void> {
  let config
  try {
    config = loadConfig(process.env, process.cwd())
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`mnemo: ${err.message}\n`)
      process.exit(1)
    }
    throw err
  }
  const logger = createLogger(config.log)
  for (const unknown of unknownVariables(process.env)) {
    logger.warn({ variable: unknown.name, suggestion: unknown.suggestion }, unknownVariableWarning(unknown))
  }
  if (openWithoutToken(config.server.host, config.server.apiToken, config.agents.tokens.size)) {
    logger.warn(
      { host: config.server.host },
      'listening beyond loopback without a token (MNEMO_ALLOW_NO_TOKEN=true): anyone who can reach this port is admin over every agent',
    )
  }
  // Before anything opens an index: a second process on this data dir stops here.
  const lock = lockDataDir(config.index.dataDir, {
    pid: process.pid,
    host: os.hostname(),
    since: new Date().toISOString(),
  })
  // Never fails: a model server that does not answer yet leaves the service in keyword mode.
  config = await probeEmbeddingDims(config, { log: logger })
  if (ensureWorkspace(config.workspace.root)) {
    logger.info({ workspace: config.workspace.root }, 'created workspace with an example MEMORY.md')
  }
  if ((await workspaceAccess(config.workspace.root)) === 'read-only') {
    logger.warn(
      { workspace: config.workspace.root, uid: process.getuid?.(), gid: process.getgid?.() },
      'this process may not write the workspace: writes will answer 403 PERMISSION_DENIED (reads and search work); ' +
        'give the folder to this uid/gid (GET /ready: checks.workspace)',
    )
  }
  const container = await createContainer(config, logger)
  const app = await buildApp({ config, logger, container })
  await app.listen({ host: config.server.host, port: config.server.port })
  await container.start()

  // Stops accepting, lets requests in progress finish, closes the indexes, then exits: 0, or
  // 1 after an uncaught error, a failed close or SHUTDOWN_TIMEOUT_MS; a second signal exits
  // at once (close-with-grace, as fastify's demo app does).
  closeWithGrace(
    {
      delay: SHUTDOWN_TIMEOUT_MS,
      logger: { error: (message: string) => logger.error(message) },
      onTimeout: () => logger.error({ timeoutMs: SHUTDOWN_TIMEOUT_MS }, 'shutdown timed out'),
    },
    async ({ signal, err }) => {
      if (err) logger.error({ err }, 'shutting down after an uncaught error')
      else logger.info({ signal }, 'shutting down')
      // Keep-alive connections sit idle once their requests finish, and would hold the close
      // open until they time out.
      const sweep = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS)
      sweep.unref()
      try {
        await app.close()
      } catch (closeErr) {
        logger.error({ err: closeErr }, 'shutdown failed')
        throw closeErr
      }
      lock.release()
    },
  )
}

main().catch((err: unknown) => {
  // Settings that only prove wrong when used (a model directory, the vector extension)
  // are reported like configuration errors: the message names the variable.
  const text =
    err instanceof ConfigError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err)
  process.stderr.write(`mnemo: failed to start: ${text}\n`)
  process.exit(1)
})
