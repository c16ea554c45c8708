/**
 * The PostgreSQL engine (SPEC §10, MNEMO_DATABASE_URL): every space's index in one schema of
 * one database, shared by any number of mnemo replicas. Created once at start-up: the pool,
 * the schema (migrations.ts), then the leftovers of rebuilds a dead replica left and of
 * indexes retired by rebuilds are deleted in the background.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { ConfigError } from '../../shared/config-error.js'
import type { Logger } from '../../shared/logger.js'
import { inProcessReader } from '../index-reader.js'
import type {
  EngineHealth,
  ReadOpsFactory,
  SpaceKey,
  SpaceStore,
  StorageEngine,
  VectorConfig,
  VectorPreference,
} from '../port.js'
import {
  CONNECT_TIMEOUT_MS,
  createPool,
  inTransaction,
  isUnreachable,
  lockKey,
  tablesOf,
  type Pool,
  type Tables,
} from './database.js'
import { createAvailability } from './availability.js'
import { createPgEmbeddingCache } from './embedding-cache.js'
import { createGuard } from './guard.js'
import { LIST_KEEP, LIST_MIN_DOC_FREQ, type ImpactListOptions } from './impact-lists.js'
import { ensureVectorTable, migrate, PG_CHUNKS_VERSION } from './migrations.js'
import { createSessionLocks } from './session-locks.js'
import { createPlannerStats } from './planner-stats.js'
import { createPgSpace, spaceName } from './space.js'
import { createPgSearchLog } from './search-log.js'
import { createNamedStatements } from './named-statements.js'

/** Rows deleted per statement when a retired index is dropped. */
const DROP_BATCH = 2000

export type PostgresEngineOptions = {
  url: string
  /** Schema that holds every table (MNEMO_DATABASE_SCHEMA). */
  schema: string
  /** Most connections (MNEMO_DATABASE_POOL). */
  poolMax: number
  /** How long requests wait for a database found away, in ms (MNEMO_DATABASE_WAIT_MS; availability.ts). */
  waitMs: number
  /** How vectors should be stored now (read at each use, like SQLite's). */
  vectors: () => VectorConfig
  /** An embedding provider may be configured: pgvector is then set up at start. */
  vectorsWanted: boolean
  /** The searches of an index (the search pipeline's), run in process. */
  readOps: ReadOpsFactory
  /** Which terms get impact lists (impact-lists.ts; default LIST_MIN_DOC_FREQ, LIST_KEEP): tests lower them. */
  impactLists?: ImpactListOptions
  log: Logger
}

/** The URL without its password, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return 'postgres://(unparsable URL)'
  }
}

export async function createPostgresEngine(opts: PostgresEngineOptions) {
  const pool = createPool({ url: opts.url, max: opts.poolMax, connectTimeoutMs: CONNECT_TIMEOUT_MS })
  const t = tablesOf(opts.schema)
  const log = opts.log
  let server: Awaited<ReturnType<typeof migrate>>
  try {
    server = await migrate(pool, t, opts.schema, { vectors: opts.vectorsWanted, log })
  } catch (err) {
    await pool.end().catch(() => undefined)
    if (err instanceof ConfigError) throw err
    throw new ConfigError(
      `MNEMO_DATABASE_URL: cannot reach or prepare ${redactUrl(opts.url)} (${(err as Error).message})`,
      { cause: err },
    )
  }
  const wantedDims = () => opts.vectors()?.dims ?? null
  const availability = createAvailability({ probe: () => pool.query('SELECT 1'), log, waitMs: opts.waitMs })
  const guard = createGuard(availability)
  const locks = createSessionLocks({ pool, url: opts.url, schema: opts.schema, poolMax: opts.poolMax, availability })
  const dropping = new Set<number>()
  const plannerStats = createPlannerStats({ pool, t, log })
  const statements = createNamedStatements(log)
  let closed = false

  /** Deletes a retired index's rows in batches once its grace period is over, then the index itself. */
  async function dropIndex(id: number): Promise<void> {
    const due = await pool.query<{ wait: number }>(
      `SELECT GREATEST(0, EXTRACT(EPOCH FROM drop_after - now()) * 1000)::float8 AS wait FROM ${t.indexes} WHERE id = $1`,
      [id],
    )
    const wait = due.rows[0]?.wait ?? 0
    if (wait > 0) await sleep(wait, undefined, { ref: false })
    for (const table of [t.postings, t.chunks, t.files, t.deleted, t.meta, t.terms]) {
      const key = table === t.chunks ? 'id' : 'ctid'
      for (;;) {
        if (closed) return
        const { rowCount } = await pool.query(
          `DELETE FROM ${table} WHERE ${key} IN (SELECT ${key} FROM ${table} WHERE index_id = $1 LIMIT ${DROP_BATCH})`,
          [id],
        )
        if ((rowCount ?? 0) < DROP_BATCH) break
      }
    }
    await pool.query(`DELETE FROM ${t.indexes} WHERE id = $1 AND state = 'retired'`, [id])
  }

  function scheduleDrop(id: number): void {
    if (dropping.has(id)) return
    dropping.add(id)
    dropIndex(id)
      .catch((err: unknown) => {
        if (!closed) log.warn({ err, index: id }, 'could not delete a retired index; the next start tries again')
      })
      .finally(() => dropping.delete(id))
  }

  /** Retires rebuilds whose replica died (their lease lapsed), and drops every retired index. */
  async function cleanUp(): Promise<void> {
    const dead = await pool.query<{ id: number }>(
      `UPDATE ${t.indexes} SET state = 'retired' WHERE state = 'building' AND lease_until < now() RETURNING id`,
    )
    for (const { id } of dead.rows) {
      log.warn({ index: id }, 'retired the half-built index of a rebuild whose replica stopped')
    }
    const { rows } = await pool.query<{ id: number }>(`SELECT id FROM ${t.indexes} WHERE state = 'retired' ORDER BY id`)
    for (const { id } of rows) scheduleDrop(id)
  }
  const cleanUpLater = () => {
    cleanUp().catch((err: unknown) => {
      if (!closed) log.warn({ err }, 'could not clean up retired indexes')
    })
  }
  cleanUpLater()
  // What a dead replica or an interrupted drop left waits for the database, not for a restart.
  availability.onRecovered(cleanUpLater)

  // CREATE … IF NOT EXISTS: safe to run again.
  const ensureVectors = (dims: number) => guard.retrying(() => ensureVectorTable(pool, t, opts.schema, dims))

  /** The space's live index and its vector size, created (empty) when the space is new. */
  async function liveIndex(name: string): Promise<{ dims: number | null; fresh: boolean }> {
    // Under the space's lock: run again after its COMMIT landed, it finds the index it made.
    return guard.retrying(() =>
      inTransaction(pool, async (c) => {
        await c.query(`SELECT pg_advisory_xact_lock(${lockKey(1)})`, [`${opts.schema}:space:${name}`])
        const found = await c.query<{ dims: number | null }>(
          `SELECT i.vector_dims AS dims FROM ${t.spaces} s JOIN ${t.indexes} i ON i.id = s.live WHERE s.space = $1`,
          [name],
        )
        if (found.rows[0]) return { dims: found.rows[0].dims, fresh: false }
        const dims = wantedDims()
        const created = await c.query<{ id: number }>(
          `INSERT INTO ${t.indexes} (space, state, vector_dims) VALUES ($1, 'live', $2) RETURNING id`,
          [name, dims],
        )
        await c.query(
          `INSERT INTO ${t.spaces} (space, live) VALUES ($1, $2) ON CONFLICT (space) DO UPDATE SET live = excluded.live`,
          [name, created.rows[0]?.id],
        )
        return { dims, fresh: true }
      }),
    )
  }

  const engine = {
    kind: 'postgres' as const,
    schemaVersion: PG_CHUNKS_VERSION,
    keywordTokenizer: 'postgres term arrays (GIN)',
    async openSpace(key: SpaceKey) {
      const dims = wantedDims()
      if (dims !== null) await ensureVectors(dims)
      const live = await liveIndex(spaceName(key))
      return createPgSpace({
        pool,
        t,
        schema: opts.schema,
        key,
        wantedDims,
        liveDims: live.dims,
        fresh: live.fresh,
        ensureVectors,
        dropIndex: scheduleDrop,
        cleanUp: cleanUpLater,
        plannerStats,
        impactLists: opts.impactLists ?? { minDocFreq: LIST_MIN_DOC_FREQ, keep: LIST_KEEP },
        statements,
        iterativeScan: server.iterativeScan,
        locks,
        guard,
        log,
      })
    },
    // Reads run in process, through the pool: the database does the work, the event loop only waits.
    readerFor: (store: SpaceStore) => inProcessReader(opts.readOps(store)),
    offThreadFor: () => undefined,
    locate: (key: SpaceKey) => `${redactUrl(opts.url)} schema ${opts.schema}, space ${spaceName(key)}`,
    async peekCounts(key: SpaceKey) {
      const { rows } = await guard.retrying(() =>
        pool.query<{ files: number; chunks: number | null }>(
          `SELECT COUNT(*) AS files, SUM(chunk_count)::bigint AS chunks FROM ${t.files}
           WHERE index_id = (SELECT live FROM ${t.spaces} WHERE space = $1)`,
          [spaceName(key)],
        ),
      )
      return { files: rows[0]?.files ?? 0, chunks: rows[0]?.chunks ?? 0 }
    },
    /** Retires every index of the space and forgets it; the rows go in the background (dropIndex). */
    async dropSpace(key: SpaceKey) {
      const name = spaceName(key)
      const retired = await guard.retrying(() =>
        inTransaction(pool, async (c) => {
          await c.query(`DELETE FROM ${t.spaces} WHERE space = $1`, [name])
          return c.query<{ id: number }>(
            `UPDATE ${t.indexes} SET state = 'retired', drop_after = now() WHERE space = $1 RETURNING id`,
            [name],
          )
        }),
      )
      for (const { id } of retired.rows) scheduleDrop(id)
    },
    vectorLayout(preference: VectorPreference) {
      if (preference !== 'auto') {
        throw new ConfigError(
          `MNEMO_VECTOR_BACKEND=${preference} applies to SQLite; with MNEMO_DATABASE_URL vectors live in pgvector`,
        )
      }
      if (server.vectorProblem) throw new ConfigError(`MNEMO_DATABASE_URL: ${server.vectorProblem}`)
      return { backend: 'pgvector' as const, shards: 1 }
    },
    openSearchLog: () => createPgSearchLog(pool, t),
    openEmbeddingCache: (cacheOpts: { maxEntries: number; now?: (() => number) | undefined }) =>
      createPgEmbeddingCache(pool, t, guard, cacheOpts),
    /**
     * Whether the database answers with mnemo's schema in it (a dropped schema is no index
     * to serve); while the database is known to be away, the probe's word, without a try.
     */
    async health(): Promise<EngineHealth> {
      if (!availability.isUp()) return { ok: false, error: availability.lastError() }
      try {
        await pool.query(`SELECT 1 FROM ${t.version} LIMIT 1`)
        return { ok: true }
      } catch (err) {
        if (isUnreachable(err)) availability.lost(err)
        return { ok: false, error: (err as Error).message }
      }
    },
    onRecovered: (listener: () => void) => availability.onRecovered(listener),
    async close(): Promise<void> {
      closed = true
      availability.close()
      await plannerStats.settled()
      await locks.close()
      await pool.end()
    },
  }
  return engine satisfies StorageEngine
}

export type PostgresEngine = Awaited<ReturnType<typeof createPostgresEngine>>
export type { Pool, Tables }
