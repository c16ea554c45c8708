/**
 * One space's index in PostgreSQL (the SpaceStore of store/port.ts). Writes run in
 * transactions that hold the space's advisory lock, so writers on every replica take turns,
 * and look up the space's live index inside the lock. Reads name the live index in the same
 * statement (index-reads.ts). A rebuild writes a new index beside the live one under a
 * lease it renews while it builds (a replica killed mid-rebuild leaves an index whose lease
 * lapses: the next start retires it), and switches `spaces.live` in one transaction.
 */
import type { ChunkFilters } from '../../domain/chunks.js'
import { isZeroVector } from '../../domain/vectors.js'
import type { Logger } from '../../shared/logger.js'
import type { FileChanges, RebuildTarget, SpaceKey, SpaceStore, SpaceWriter, StepOptions, VectorPut } from '../port.js'
import { inTransaction, lockKey, type Client, type Pool, type Tables } from './database.js'
import type { Guard } from './guard.js'
import { createIndexReads } from './index-reads.js'
import { idScope, liveScope, type Scope } from './read-sql.js'
import { createIndexWrites, vectorLiteral } from './index-writes.js'
import { createImpactLists, type ImpactListOptions } from './impact-lists.js'
import { createListResume } from './list-resume.js'
import type { PlannerStats } from './planner-stats.js'
import type { SessionLocks } from './session-locks.js'
import type { NamedStatements } from './named-statements.js'
import { PG_BATCH_CHUNKS, PG_QUIET_BATCH_CHUNKS } from './batch-sizes.js'

/**
 * How long a rebuild's claim on its new index lasts without renewal, in ms (renewed every
 * quarter of it): a replica that died mid-rebuild leaves an index others clean up after this.
 */
export const LEASE_MS = 60_000
/**
 * How long an index replaced by a rebuild is kept before it is deleted, in ms: longer than
 * any search takes (a search that ranked its chunks fetches their texts afterwards).
 */
export const RETIRED_GRACE_MS = 60_000

/** The text of a space's key in the database: `agent:<id>`, `user:<agent>/<user>` or `team`. */
export function spaceName(key: SpaceKey): string {
  if (key.kind === 'team') return 'team'
  return key.kind === 'user' ? `user:${key.agent}/${key.user}` : `agent:${key.id}`
}

export type PgSpaceDeps = {
  pool: Pool
  t: Tables
  schema: string
  key: SpaceKey
  /** Vector dimensions new indexes store now (null: none). */
  wantedDims: () => number | null
  /** The live index's vector dimensions when opened. */
  liveDims: number | null
  /** The space had no index before this open. */
  fresh: boolean
  /** Creates the vector table of a size when missing. */
  ensureVectors: (dims: number) => Promise<void>
  /** Deletes a retired index's rows in the background. */
  dropIndex: (id: number) => void
  /** Retires dead rebuilds and deletes retired indexes (also run at start). */
  cleanUp: () => void
  /** Which terms get impact lists and how long they are (impact-lists.ts). */
  impactLists: ImpactListOptions
  /** Keyword queries as named statements while the session allows (named-statements.ts). */
  statements: NamedStatements
  /** Told of the chunk rows each write inserted (planner-stats.ts). */
  plannerStats: PlannerStats
  /** Locks shared with every replica (session-locks.ts). */
  locks: SessionLocks
  /** pgvector can keep scanning an HNSW index until enough rows pass the filters (0.8+). */
  iterativeScan: boolean
  /** What a query does when the database goes away (guard.ts): retried once it is back, or 503. */
  guard: Guard
  log: Logger
}

export function createPgSpace(deps: PgSpaceDeps): SpaceStore {
  const { pool, t, schema, guard } = deps
  const space = spaceName(deps.key)
  const reads = createIndexReads(pool, t, deps.statements, deps.impactLists)
  const lists = createImpactLists(t, deps.impactLists)
  const resume = createListResume(t, lists, deps.impactLists)
  const writes = createIndexWrites(t, lists, resume)
  const live = liveScope(t, space)
  let liveDims = deps.liveDims
  let open = true

  /**
   * Runs `fn` under the space's write lock for the index to write: `fixed` (skipped once it
   * was retired), or the live one looked up under the lock — with `rebuilds`, also every new
   * index a rebuild is writing, on whichever replica: a change made through this replica
   * while another rebuilds is then in the index that replaces the live one.
   */
  async function write(
    fixed: number | null,
    fn: (c: Client, id: number, dims: number | null) => Promise<void>,
    rebuilds = false,
  ) {
    await inTransaction(pool, async (c) => {
      await c.query(`SELECT pg_advisory_xact_lock(${lockKey(1)})`, [`${schema}:space:${space}`])
      const { rows } = await c.query<{ id: number; state: string; vector_dims: number | null }>(
        fixed !== null
          ? `SELECT id, state, vector_dims FROM ${t.indexes} WHERE id = $1`
          : `SELECT i.id, i.state, i.vector_dims FROM ${t.indexes} i
             WHERE i.id = (SELECT live FROM ${t.spaces} WHERE space = $1)
               ${rebuilds ? `OR (i.space = $1 AND i.state = 'building')` : ''}
             ORDER BY i.state = 'building', i.id`,
        [fixed ?? space],
      )
      const wanted = deps.wantedDims()
      for (const index of rows) {
        if (index.state === 'retired') continue
        if (fixed === null && index.state === 'live') liveDims = index.vector_dims
        await fn(c, index.id, index.vector_dims !== null && index.vector_dims === wanted ? wanted : null)
      }
    })
  }

  async function putVectors(fixed: number | null, items: readonly VectorPut[]): Promise<void> {
    if (items.length === 0) return
    // An upsert: run twice, it leaves the same rows.
    await guard.retrying(() =>
      write(fixed, async (c, indexId, dims) => {
        if (dims === null) return
        const ids = items.map((i) => i.id)
        const { rows } = await c.query<{ id: number }>(
          `SELECT id FROM ${t.chunks} WHERE id = ANY($1::bigint[]) AND index_id = $2`,
          [ids, indexId],
        )
        const present = new Set(rows.map((r) => r.id))
        // A zero vector (nothing to embed) has no direction: the chunk is done without one.
        const stored = items.filter((i) => present.has(i.id) && i.vector.length === dims && !isZeroVector(i.vector))
        if (stored.length > 0) {
          await c.query(
            `INSERT INTO ${t.vectors(dims)} (chunk_id, index_id, path, source, embedding)
           SELECT u.id, $1, u.path, u.source, u.v::vector
           FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[]) AS u(id, path, source, v)
           ON CONFLICT (chunk_id) DO UPDATE SET embedding = excluded.embedding`,
            [
              indexId,
              stored.map((i) => i.id),
              stored.map((i) => i.path),
              stored.map((i) => i.source),
              stored.map((i) => vectorLiteral(i.vector)),
            ],
          )
        }
        await c.query(`UPDATE ${t.chunks} SET has_vector = true WHERE id = ANY($1::bigint[])`, [[...present]])
      }),
    )
  }

  /**
   * `fn`'s answer for the index `fixed` (null: the live one) under the space's write lock,
   * run again once the database is back; undefined when the index was retired.
   */
  async function writeOne<T>(fixed: number | null, fn: (c: Client, id: number) => Promise<T>) {
    let answer: T | undefined
    await guard.retrying(() =>
      write(fixed, async (c, id) => {
        answer = await fn(c, id)
      }),
    )
    return answer
  }

  /**
   * Builds the impact lists a full pass paused (list-resume.ts) in the index `fixed` (null:
   * the live one, which the first transaction pins): ranks RESUME_CHUNKS chunks a read
   * without the lock, then writes their postings RESUME_CHUNKS chunks a transaction, unless
   * another compaction builds them already.
   */
  async function resumeLists(fixed: number | null, steps: StepOptions): Promise<void> {
    const found = await writeOne(fixed, async (c, id) => ({ index: id, paused: await resume.stillPaused(c, id) }))
    if (!found?.paused) return
    const { index } = found
    const release = await guard.once(() => deps.locks.tryTake(`lists:${index}`))
    if (!release) return
    try {
      const staging = await writeOne(index, (c, id) => resume.begin(c, id))
      if (!staging) return
      for (;;) {
        await steps.between()
        steps.signal?.throwIfAborted()
        const last = await guard.retrying(() => inTransaction(pool, (c) => resume.rank(c, index, staging)))
        if (last === null) break
        staging.after = last
      }
      staging.after = 0
      for (;;) {
        await steps.between()
        steps.signal?.throwIfAborted()
        const last = await writeOne(index, (c, id) => resume.next(c, id, staging))
        if (last === null || last === undefined) break
        staging.after = last
      }
      await writeOne(index, (c, id) => resume.finish(c, id, staging))
    } finally {
      await release()
    }
  }

  /** The writer of the live index (`fixed` null) or of one index by id. */
  function writerOf(scope: Scope, fixed: number | null, dims: () => number | null): SpaceWriter {
    return {
      async applyChanges(changes: FileChanges, steps: StepOptions): Promise<void> {
        steps.signal?.throwIfAborted()
        let inserted = 0
        // A file's rows are replaced whole, so a transaction run again (its COMMIT may have
        // landed before the connection broke) leaves the same index.
        await guard.retrying(() => {
          inserted = 0
          return write(
            fixed,
            async (c, id, vectorDims) => {
              inserted += await writes.apply(c, id, changes, vectorDims, steps.compactsAfter === true)
            },
            true,
          )
        })
        deps.plannerStats.inserted(inserted)
        await steps.between()
      },
      compact: (steps) => resumeLists(fixed, steps),
      putVectors: (items) => putVectors(fixed, items),
      setMeta: (key, value) =>
        guard.retrying(() =>
          write(fixed, async (c, id) => {
            await c.query(
              `INSERT INTO ${t.meta} (index_id, key, value) VALUES ($1, $2, $3)
               ON CONFLICT (index_id, key) DO UPDATE SET value = excluded.value`,
              [id, key, value],
            )
          }),
        ),
      storesVectors: () => {
        const wanted = deps.wantedDims()
        return wanted !== null && dims() === wanted
      },
      listFiles: () => guard.retrying(() => reads.listFiles(scope)),
      getFile: (path) => guard.retrying(() => reads.getFile(scope, path)),
      pendingVectors: (limit) => guard.retrying(() => reads.pendingVectors(scope, limit)),
      pendingVectorCount: () => guard.retrying(() => reads.pendingVectorCount(scope)),
      batchChunks: PG_BATCH_CHUNKS,
      quietBatchChunks: PG_QUIET_BATCH_CHUNKS,
      overlapsWrites: true,
      stage: (changes) => {
        void writes.stage(changes)
      },
    }
  }

  /** The `k` nearest chunks passing `filters`, from the HNSW index of `dims` dimensions. */
  const nearestIn = (dims: number, vector: Float32Array, k: number, filters: ChunkFilters) =>
    guard.retrying(() =>
      inTransaction(pool, async (c) => {
        // The HNSW index finds `ef_search` candidates before filters apply: enough for k, and
        // with iterative scans it goes on until k rows pass them.
        await c.query(`SELECT set_config('hnsw.ef_search', $1, true)`, [String(Math.max(40, k))])
        if (deps.iterativeScan) await c.query(`SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)`)
        return createIndexReads(c, t, deps.statements).nearest(live, dims, vector, k, filters)
      }),
    )

  /**
   * Current facts only (the default): twice the neighbours without the status filter, whose
   * superseded ones are dropped here, rather than a look at each candidate's chunk row inside
   * the scan; again with the filter only when too few are left (store/sqlite/vec0-index.ts).
   */
  async function nearest(vector: Float32Array, k: number, filters: ChunkFilters) {
    const dims = liveDims
    if (k <= 0 || dims === null || vector.length !== dims) return []
    if (filters.includeSuperseded) return nearestIn(dims, vector, k, filters)
    const fetch = 2 * k + 8
    const near = await nearestIn(dims, vector, fetch, { ...filters, includeSuperseded: true })
    const current = near.filter((n) => n.entry?.status !== 'superseded')
    if (current.length >= k || near.length < fetch) return current.slice(0, k)
    return nearestIn(dims, vector, k, filters)
  }

  async function beginRebuild(): Promise<RebuildTarget> {
    // What a replica that died mid-rebuild left is cleaned up by the next rebuild too.
    deps.cleanUp()
    const dims = deps.wantedDims()
    if (dims !== null) await deps.ensureVectors(dims)
    const lease = `now() + make_interval(secs => ${LEASE_MS / 1000})`
    // Not run twice: a second new index would be left for the lease to retire.
    const { rows } = await guard.once(() =>
      pool.query<{ id: number }>(
        `INSERT INTO ${t.indexes} (space, state, vector_dims, lease_until) VALUES ($1, 'building', $2, ${lease})
         RETURNING id`,
        [space, dims],
      ),
    )
    const id = (rows[0] as { id: number }).id
    // Renewed while the rebuild runs: no other replica takes this index for a dead one's.
    const renew = setInterval(() => {
      pool
        .query(`UPDATE ${t.indexes} SET lease_until = ${lease} WHERE id = $1 AND state = 'building'`, [id])
        .catch((err: unknown) => deps.log.warn({ err, index: id }, 'could not renew the rebuild lease'))
    }, LEASE_MS / 4)
    renew.unref()
    let done = false
    const release = async () => clearInterval(renew)
    const retire = async () => {
      await guard.retrying(() =>
        write(null, async (c) => {
          await c.query(`UPDATE ${t.indexes} SET state = 'retired' WHERE id = $1 AND state = 'building'`, [id])
        }),
      )
      deps.dropIndex(id)
    }
    return {
      ...writerOf(idScope(id), id, () => dims),
      finish: async () => undefined,
      async commit({ signal, detach, onSwitch }): Promise<void> {
        signal.throwIfAborted()
        await onSwitch?.()
        let old: number | null = null
        // Once only: run again after it landed, it would retire the index it just switched to.
        await guard.once(() =>
          write(null, async (c, liveId) => {
            // A replica that found this rebuild's lease lapsed (this one lost the database for
            // longer than the lease) has retired it, and may be deleting its rows.
            const { rows: building } = await c.query(
              `SELECT 1 FROM ${t.indexes} WHERE id = $1 AND state = 'building'`,
              [id],
            )
            if (building.length === 0) throw new Error(`the rebuild's new index ${id} was retired while it was built`)
            await c.query(`UPDATE ${t.spaces} SET live = $2 WHERE space = $1`, [space, id])
            await c.query(`UPDATE ${t.indexes} SET state = 'live' WHERE id = $1`, [id])
            // Searches that ranked the old index's chunks may still fetch their texts: it is
            // deleted once they are done (engine.ts RETIRED_GRACE_MS).
            await c.query(
              `UPDATE ${t.indexes} SET state = 'retired', drop_after = now() + make_interval(secs => $2) WHERE id = $1`,
              [liveId, RETIRED_GRACE_MS / 1000],
            )
            old = liveId
          }),
        )
        done = true
        liveDims = dims
        detach()
        await release()
        if (old !== null) deps.dropIndex(old)
      },
      async abort(): Promise<void> {
        if (done) return
        done = true
        await release()
        await retire()
      },
    }
  }

  return {
    key: deps.key,
    ...writerOf(live, null, () => liveDims),
    fresh: deps.fresh,
    repaired: { recreated: false, staleRebuild: false },
    recovered: Promise.resolve(0),
    isOpen: () => open,
    findEntries: (q) => guard.retrying(() => reads.findEntries(live, q)),
    getMeta: (key) => guard.retrying(() => reads.getMeta(live, key)),
    counts: () => guard.retrying(() => reads.counts(live)),
    readSequence: () => ({
      // A number taken twice leaves a gap, which the order of reads does not mind.
      next: () =>
        guard.retrying(async () => {
          const { rows } = await pool.query<{ n: number }>('SELECT nextval($1::regclass) AS n', [t.readSeq])
          return (rows[0] as { n: number }).n
        }),
    }),
    beginRebuild,
    // Taking the lock waits for a database that went away (session-locks.ts); the write
    // itself runs once.
    withPathLock: (path, fn) => guard.once(() => deps.locks.run(`path:${space}:${path}`, fn)),
    claimSync: () => guard.once(() => deps.locks.tryTake(`sync:${space}`)),
    candidates: (q) => guard.retrying(() => reads.candidates(live, q)),
    newestMatches: (q) => guard.retrying(() => reads.newestMatches(live, q)),
    keywordStats: (terms) => guard.retrying(() => reads.keywordStats(live, terms)),
    candidatesWithStats: (q, terms) => guard.retrying(() => reads.candidatesWithStats(live, q, terms)),
    nearest,
    chunkTexts: (ids) => guard.retrying(() => reads.chunkTexts(ids)),
    close: () => {
      open = false
    },
  }
}
