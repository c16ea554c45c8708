/**
 * Reads and writes of chunk vectors on one connection, for either backend (vector-schema.ts).
 * KNN filters are written into the vec0 query itself, one prepared statement per filter
 * combination, so sqlite-vec applies them during the scan and `k` rows that pass come back
 * however many chunks the filters exclude.
 */
import { MEMORY_FILE } from '../../domain/layout.js'
import { isZeroVector } from '../../domain/vectors.js'
import type { ChunkFilters, Source } from '../../domain/chunks.js'
import type { ChunkEntry } from '../../domain/entry-meta.js'
import { vecEntryValues } from './entry-columns.js'
import type { Db } from './database.js'
import type { VectorConfig } from '../port.js'

/** Upper bound of a prefix range: every string starting with `prefix` sorts below it. */
const prefixEnd = (prefix: string) => `${prefix}\u{10FFFF}`

const asBlob = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength)

/**
 * dated_ms of an undated chunk in chunks_vec: vec0 metadata cannot be NULL. Far below any
 * date (−2^62 ms), so a range never includes it and `= UNDATED` finds exactly the undated.
 */
const UNDATED = -(2n ** 62n)

/**
 * Rows of vector_changes kept (vector-schema.ts): a search thread's quantised copy that fell
 * further behind reads every vector again (about 0.85 s of one core per 100,000 of 256
 * dimensions), which by then costs about as much as looking this many changes up one by one.
 */
const CHANGES_KEPT = 50_000
/** The log is cut back once every this many rows (one indexed range delete). */
const CHANGES_PRUNE_EVERY = 1024

/** The shard a chunk's vector lives in. */
export const shardOf = (id: number | bigint, shards: number): number => Number(BigInt(id) % BigInt(shards))

export function createVectorRepo(db: Db, cfg: VectorConfig) {
  const vec0 = cfg?.backend === 'sqlite-vec'
  const table = vec0 ? 'chunks_vec' : 'chunk_vectors'
  const key = vec0 ? 'rowid' : 'chunk_id'
  const stmt = cfg && {
    insert: vec0
      ? db.prepare(
          `INSERT INTO chunks_vec (rowid, shard, embedding, source, path, dated_ms, entry_status, entry_origin)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        )
      : db.prepare('INSERT INTO chunk_vectors (chunk_id, embedding) VALUES (?, ?)'),
    // vec0 cannot use a subquery to find rows, so vectors are deleted one rowid at a time.
    deleteOne: db.prepare(`DELETE FROM ${table} WHERE ${key} = ?`),
    markStored: db.prepare('UPDATE chunks SET has_vector = 1 WHERE id = ?'),
    all: db.prepare<[], { id: number; embedding: Buffer }>(`SELECT ${key} AS id, embedding FROM ${table}`),
  }
  // Beside vec0 (layouts with floatCopy, vector-schema.ts): the floats by id, and the change log.
  const copy = vec0 && cfg.floatCopy ? createFloatCopy(db, cfg.shards) : null
  const knnStatements = new Map<string, ReturnType<Db['prepare']>>()

  /** A chunk is superseded (the partial index chunks_superseded answers at once). */
  const superseded = db.prepare<[], { one: number }>(
    "SELECT 1 AS one FROM chunks WHERE entry_status = 'superseded' LIMIT 1",
  )

  /**
   * `dated`: 'range' keeps chunks dated in [@after, @before), 'undated' the undated ones.
   * `current`: leaves superseded entries out (asked only while the index holds one: the
   * scan then need not read a metadata column for nothing).
   */
  function knnStatement(filters: ChunkFilters, sharded: boolean, dated: 'range' | 'undated' | null, current: boolean) {
    const parts = [
      filters.source ? 's' : '',
      filters.pathPrefix ? 'p' : '',
      filters.excludeMemoryFile ? 'x' : '',
      sharded ? 'h' : '',
      dated ?? '',
      current ? 'c' : '',
      filters.origins ? `o${filters.origins.length}` : '',
    ]
    const id = parts.join('')
    let st = knnStatements.get(id)
    if (!st) {
      const where = ['embedding MATCH @vector', 'k = @k']
      if (sharded) where.push('shard = @shard')
      if (filters.source) where.push('source = @source')
      if (filters.pathPrefix) where.push('path >= @lo', 'path <= @hi')
      if (filters.excludeMemoryFile) where.push(`path != '${MEMORY_FILE}'`)
      if (dated === 'range') where.push('dated_ms >= @after', 'dated_ms < @before')
      if (dated === 'undated') where.push(`dated_ms = ${UNDATED}`)
      if (current) where.push(`entry_status = 'active'`)
      if (filters.origins) {
        // No origin at all: none passes ('' is a chunk without one, which never does).
        const list = filters.origins.length > 0 ? filters.origins.map((_, i) => `@origin${i}`).join(', ') : `'-'`
        where.push(`entry_origin IN (${list})`)
      }
      st = db.prepare(`SELECT rowid AS id, distance FROM chunks_vec WHERE ${where.join(' AND ')}`)
      knnStatements.set(id, st)
    }
    return st
  }

  return {
    /**
     * Stores a chunk's vector and marks the chunk as done. A zero vector (text with nothing
     * to embed) is not stored: it has no direction, and cosine distance to it means nothing.
     */
    put: (
      chunkId: number | bigint,
      path: string,
      source: Source,
      place: { datedMs: number | null; entry: ChunkEntry | null },
      vector: Float32Array,
    ): void => {
      if (!stmt || !cfg) return
      if (vector.length !== cfg.dims) throw new Error(`vector has ${vector.length} dimensions, the index ${cfg.dims}`)
      const id = BigInt(chunkId)
      if (!isZeroVector(vector)) {
        // vec0 partition keys must be bound as integers; better-sqlite3 binds a JS number as REAL.
        const dated = place.datedMs === null ? UNDATED : BigInt(Math.trunc(place.datedMs))
        const shard = BigInt(shardOf(id, cfg.shards))
        if (vec0) stmt.insert.run(id, shard, asBlob(vector), source, path, dated, ...vecEntryValues(place.entry))
        else stmt.insert.run(id, asBlob(vector))
        copy?.put(id, asBlob(vector))
      }
      stmt.markStored.run(id)
    },
    /** Deletes the vectors of the given chunks. */
    deleteIds(ids: readonly number[]): void {
      if (!stmt) return
      for (const id of ids) {
        stmt.deleteOne.run(BigInt(id))
        copy?.delete(BigInt(id))
      }
    },
    /**
     * The `k` nearest chunks of one shard (or all) that pass the filters (sqlite-vec only).
     * A time range is two scans when undated chunks pass too (vec0 has no OR): the dated
     * chunks in range and the undated ones, merged by distance.
     */
    knn: (
      vector: Float32Array,
      k: number,
      filters: ChunkFilters,
      shard?: number,
    ): { id: number; distance: number }[] => {
      if (!vec0) throw new Error('knn needs the sqlite-vec backend')
      const prefix = filters.pathPrefix
      const params: Record<string, unknown> = { vector: asBlob(vector), k }
      if (shard !== undefined) params.shard = shard
      if (filters.source) params.source = filters.source
      if (prefix) Object.assign(params, { lo: prefix, hi: prefixEnd(prefix) })
      filters.origins?.forEach((origin, i) => (params[`origin${i}`] = origin))
      const sharded = shard !== undefined
      const current = !filters.includeSuperseded && superseded.get() !== undefined
      type Row = { id: number; distance: number }
      const range = filters.dated
      if (!range) return knnStatement(filters, sharded, null, current).all(params) as Row[]
      const bounds = {
        after: range.afterMs === undefined ? UNDATED + 1n : BigInt(Math.ceil(range.afterMs)),
        before: range.beforeMs === undefined ? 2n ** 62n : BigInt(Math.ceil(range.beforeMs)),
      }
      const dated = knnStatement(filters, sharded, 'range', current).all({ ...params, ...bounds }) as Row[]
      if (range.datedOnly) return dated
      const undated = knnStatement(filters, sharded, 'undated', current).all(params) as Row[]
      return [...dated, ...undated].sort((a, b) => a.distance - b.distance || a.id - b.id).slice(0, k)
    },
    /** Every stored vector (the scan backend loads them into memory). */
    all: (): { id: number; embedding: Buffer }[] => stmt?.all.all() ?? [],
    /**
     * The float copy beside vec0, when the layout keeps one: every vector one row at a time,
     * a vector by id, exact distances, and the log of changed ids (vector-schema.ts).
     */
    floatCopy: copy && {
      eachVector: copy.eachVector,
      vectorOf: copy.vectorOf,
      distances: copy.distances,
      changes: { bounds: copy.bounds, after: copy.after },
    },
  }
}

/** chunk_vectors and vector_changes beside a vec0 table (vector-schema.ts) of `shards` shards. */
function createFloatCopy(db: Db, shards: number) {
  const st = {
    insert: db.prepare('INSERT INTO chunk_vectors (chunk_id, embedding) VALUES (?, ?)'),
    delete: db.prepare('DELETE FROM chunk_vectors WHERE chunk_id = ?'),
    // Shard = chunk id modulo shards (shardOf); the other shards' blobs are never read into JS.
    of: db.prepare<[number, string], { id: number; embedding: Buffer }>(
      'SELECT chunk_id AS id, embedding FROM chunk_vectors WHERE chunk_id % ? IN (SELECT value FROM json_each(?))',
    ),
    vector: db.prepare<[number], Buffer>('SELECT embedding FROM chunk_vectors WHERE chunk_id = ?').pluck(),
    distance: db
      .prepare<[Buffer, number], number>(
        'SELECT vec_distance_cosine(embedding, ?) FROM chunk_vectors WHERE chunk_id = ?',
      )
      .pluck(),
    log: db.prepare('INSERT INTO vector_changes (chunk_id) VALUES (?)'),
    prune: db.prepare('DELETE FROM vector_changes WHERE seq <= ?'),
    bounds: db.prepare<[], { min: number | null; max: number | null }>(
      'SELECT MIN(seq) AS min, MAX(seq) AS max FROM vector_changes',
    ),
    after: db.prepare<[number], { seq: number; id: number }>(
      'SELECT seq, chunk_id AS id FROM vector_changes WHERE seq > ? ORDER BY seq',
    ),
  }
  function record(id: bigint): void {
    const seq = Number(st.log.run(id).lastInsertRowid)
    if (seq % CHANGES_PRUNE_EVERY === 0) st.prune.run(seq - CHANGES_KEPT)
  }
  return {
    put(id: bigint, embedding: Buffer): void {
      st.insert.run(id, embedding)
      record(id)
    },
    delete(id: bigint): void {
      st.delete.run(id)
      record(id)
    },
    /** Every stored vector of the given shards, one at a time. */
    eachVector: (of: readonly number[], fn: (id: number, embedding: Buffer) => void): void => {
      for (const row of st.of.iterate(shards, JSON.stringify(of))) fn(row.id, row.embedding)
    },
    vectorOf: (id: number): Buffer | undefined => st.vector.get(id),
    /**
     * Exact cosine distances from `vector` to the stored vectors of `ids`, by sqlite-vec's
     * own function, so they equal a KNN query's; ids without a vector are absent.
     */
    distances: (vector: Float32Array, ids: readonly number[]): { id: number; distance: number }[] => {
      const blob = asBlob(vector)
      const out: { id: number; distance: number }[] = []
      for (const id of ids) {
        const distance = st.distance.get(blob, id)
        if (distance !== undefined) out.push({ id, distance })
      }
      return out
    },
    bounds: () => st.bounds.get() ?? { min: null, max: null },
    after: (seq: number) => st.after.all(seq),
  }
}

export type VectorRepo = ReturnType<typeof createVectorRepo>
