/**
 * Builds the real app (config → container → app) over a temp workspace and a temp SQLite
 * file, as main.ts does, minus listen. Tests call the API with app.inject. In the
 * `postgres-api` test project (MNEMO_TEST_ENGINE=postgres) the indexes go to the test
 * database instead, in a schema of the workspace's own, dropped when the app closes.
 */
import type { FastifyInstance } from 'fastify'
import { inject, onTestFinished } from 'vitest'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config/load-config.js'
import { createContainer, type Container, type ContainerOverrides } from '../../src/wiring/container.js'
import { probeEmbeddingDims } from '../../src/providers/probe-dims.js'
import type { SearchResponse } from '../../src/search/types.js'
import { createLogger } from '../../src/shared/logger.js'
import { testDatabaseEnv } from './test-database.js'
import { createTempWorkspace, type TempWorkspace } from './temp-workspace.js'

export type TestApp = {
  app: FastifyInstance
  ws: TempWorkspace
  container: Container
  /** POST /search with the body; returns the parsed response. */
  search(body: Record<string, unknown>): Promise<{ statusCode: number; body: SearchBody }>
  /** POST /index?wait=true and assert success. */
  sync(full?: boolean): Promise<void>
  /** Closes the app, deletes the temp workspace and drops the test schema; once, however often called. */
  close(): Promise<void>
}

/** A /search response body, or an error body (which has a code). */
export type SearchBody = SearchResponse & { code?: string }

/** The bundled search worker script of this run (bundles.ts), if the project made one. */
const readerWorker = (): { readerWorkerEntry?: URL } => {
  const href = inject('readerWorkerEntry')
  return href ? { readerWorkerEntry: new URL(href) } : {}
}

export async function buildTestApp(
  opts: {
    corpus?: boolean
    env?: Record<string, string>
    overrides?: ContainerOverrides
    sync?: boolean
    /** The built web console to serve (default: this run's build, bundles.ts). */
    consoleDir?: string
    /** Run container.start() (watcher, start-up sync per env) before returning. */
    start?: boolean
    ws?: TempWorkspace
    /** Collects every log line (at debug level) instead of discarding them. */
    logs?: string[]
  } = {},
): Promise<TestApp> {
  const ws = opts.ws ?? createTempWorkspace({ corpus: opts.corpus ?? false })
  const database = testDatabaseEnv(ws)
  const loaded = loadConfig(
    {
      MNEMO_WORKSPACE: ws.root,
      MNEMO_DATA_DIR: ws.dataDir,
      MNEMO_LOG_LEVEL: 'silent',
      MNEMO_INDEX_ON_START: 'false',
      MNEMO_WATCH: 'false',
      // The app shares its event loop with the test runner (transforms, other tests), whose
      // delays are not the service's load: shedding by delay is tested on its own.
      MNEMO_SHED_EVENT_LOOP_DELAY_MS: '0',
      ...database?.env,
      ...opts.env,
    },
    ws.base,
  )
  const logs = opts.logs
  const logger = logs
    ? createLogger({ level: 'debug' }, { write: (line) => void logs.push(line) })
    : createLogger(loaded.log)
  // As serve.ts does: asks an unknown embedding model for its dimensions.
  const config = await probeEmbeddingDims(loaded, { log: logger })
  const container = await createContainer(config, logger, { ...readerWorker(), ...opts.overrides })
  if (database && (await container.services.readiness()).checks.engine !== 'postgres') {
    throw new Error('the postgres-api project must run on PostgreSQL')
  }
  const consoleDir = opts.consoleDir ?? inject('consoleDir')
  const app = await buildApp({ config, logger, container, ...(consoleDir && { consoleDir }) })
  const headers = config.server.apiToken ? { authorization: `Bearer ${config.server.apiToken}` } : {}

  let closing: Promise<void> | undefined
  const testApp: TestApp = {
    app,
    ws,
    container,
    async search(body) {
      const res = await app.inject({ method: 'POST', url: '/search', payload: body, headers })
      return { statusCode: res.statusCode, body: res.json<SearchBody>() }
    },
    async sync(full = false) {
      const res = await app.inject({ method: 'POST', url: '/index?wait=true', payload: { full }, headers })
      if (res.statusCode !== 200) throw new Error(`sync failed: ${res.statusCode} ${res.body}`)
    },
    close() {
      closing ??= (async () => {
        await app.close()
        ws.cleanup()
        await database?.drop()
      })()
      return closing
    },
  }
  if (opts.start) await container.start()
  if (opts.sync ?? true) await testApp.sync()
  return testApp
}

/**
 * buildTestApp inside a test: the app closes itself when the test finishes, pass or fail
 * (onTestFinished runs last-built first, so an app restarted over the same workspace closes
 * before the one it replaced). For an app shared by a file's tests, buildTestApp in beforeAll.
 */
export async function useTestApp(opts: Parameters<typeof buildTestApp>[0] = {}): Promise<TestApp> {
  const t = await buildTestApp(opts)
  onTestFinished(() => t.close())
  return t
}
