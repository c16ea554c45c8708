/**
 * A quantised copy of one index's vectors, held in memory by the connection that searches
 * them (a search thread's, usually): int8 codes, 1 byte per dimension (25.6 MB per 100,000
 * chunks of 256 dimensions). It pre-selects the candidates of a KNN search whose query
 * vector is sparse (a `hash` query: 7–35 non-zero of 256): reading one code per non-zero
 * dimension of every row takes ~5 ms per 100,000 chunks on one core, where sqlite-vec's full
 * float scan takes ~55. vec0-index.ts then scores the candidates exactly from the stored
 * float vectors. Dense query vectors (model embeddings) gain nothing from it: they keep the
 * vec0 scan (null).
 *
 * It holds the shards its searches asked for: each read thread is asked for the same ones
 * (read-threads.ts pins a split search's parts), so two threads hold half the vectors each
 * instead of all of them twice (256 MB saved at a million chunks).
 *
 * Loaded at the first search that may use it, then kept current from vector_changes
 * (vector-schema.ts) whenever the index changed; read again whole when it fell behind the
 * log, when a quarter of its rows are of deleted chunks, or when a search asks for a shard
 * it does not hold.
 */
import { createCodeRows, type CodeRows } from './code-rows.js'
import { sparseQuery } from './int8-codes.js'

/**
 * Most non-zero dimensions, as a fraction of all, for which the pre-selection beats the
 * float scan (its cost grows with them; 64 of 256 reads a quarter of every row's codes).
 */
const SPARSE_MAX_FRACTION = 0.25
/**
 * Room made for more rows than the held shards' share of the chunks when the copy is read
 * (× that share): chunk ids go to shards in turn, so the shares differ by a row or two, and
 * a copy one row short would grow (code-rows.ts GROWTH) at once.
 */
const CAPACITY_SLACK = 1.02

export type QuantizedSource = {
  /** Of the index's vector layout. */
  dims: number
  shards: number
  /** Changes whenever the index changed (another connection's commits included). */
  generation(): number
  /** Chunks in the index: the copy is made only for indexes of at least `minVectors`. */
  chunks(): number
  /** Every stored vector of the given shards, one at a time. */
  eachVector(of: readonly number[], fn: (id: number, embedding: Buffer) => void): void
  /** A stored vector by chunk id (undefined: none). */
  vectorOf(id: number): Buffer | undefined
  /** The change log's bounds and rows (vector-repo.ts). */
  changes: {
    bounds(): { min: number | null; max: number | null }
    after(seq: number): { seq: number; id: number }[]
  }
}

export function createQuantizedVectors(src: QuantizedSource, minVectors: number) {
  const allShards = Array.from({ length: src.shards }, (_, i) => i)
  let rows: CodeRows | null = null
  /** Shards in the copy: every shard a search asked for so far, ascending. */
  let held: number[] = []
  /** Last change applied (vector_changes.seq), and the index generation it was read at. */
  let cursor = 0
  let seenGeneration: number | null = null
  /** The index's chunk count at a generation, while the copy is not made yet. */
  let counted: { generation: number; chunks: number } | null = null

  /** Whether the index is big enough for the copy (counted once per generation until then). */
  function bigEnough(): boolean {
    if (seenGeneration !== null) return true
    const generation = src.generation()
    if (counted?.generation !== generation) counted = { generation, chunks: src.chunks() }
    return counted.chunks >= minVectors
  }

  /** Reads every vector of the held shards, in rows sized once for them. */
  function loadAll(maxSeq: number): CodeRows {
    const share = (src.chunks() * held.length) / src.shards
    const fresh = createCodeRows(src.dims, src.shards, held, Math.ceil(share * CAPACITY_SLACK) + 1)
    // Changes committed after the bounds were read are applied again next time: put is idempotent.
    cursor = maxSeq
    src.eachVector(held, (id, embedding) => fresh.put(id, embedding))
    return fresh
  }

  /** Brings the copy up to the index's current state, holding at least the shards `asked`. */
  function refresh(asked: readonly number[]): CodeRows {
    const generation = src.generation()
    const missing = asked.filter((s) => !held.includes(s))
    if (rows && missing.length === 0 && generation === seenGeneration) return rows
    held = [...held, ...missing].sort((a, b) => a - b)
    seenGeneration = generation
    const { min, max } = src.changes.bounds()
    const behind = max === null || max < cursor || (min !== null && min > cursor + 1)
    if (!rows || missing.length > 0 || behind || rows.dead() * 4 > rows.live()) return (rows = loadAll(max ?? 0))
    for (const { seq, id } of src.changes.after(cursor)) {
      const embedding = src.vectorOf(id)
      if (embedding) rows.put(id, embedding)
      else rows.drop(id)
      cursor = seq
    }
    return rows
  }

  return {
    /**
     * Chunk ids of the `n` stored vectors nearest to `vector` by their codes, best first, in
     * the given shards (or all); null when the pre-selection does not apply (a dense query,
     * or an index smaller than `minVectors`): the caller scans exactly.
     */
    candidates(vector: Float32Array, n: number, shards?: readonly number[]): number[] | null {
      if (minVectors <= 0) return null
      const query = sparseQuery(vector, SPARSE_MAX_FRACTION)
      if (!query || !bigEnough()) return null
      const asked = shards ?? allShards
      const current = refresh(asked)
      // An index that shrank below the minimum is scanned again; the held shards' rows stand
      // for their share of it (chunk ids go to shards in turn).
      return current.live() * src.shards < minVectors * held.length ? null : current.top(query, n, asked)
    },
    /** Chunks found without a vector when scored (deleted since the copy was read). */
    forget(ids: readonly number[]): void {
      for (const id of ids) rows?.drop(id)
    },
  }
}

export type QuantizedVectors = ReturnType<typeof createQuantizedVectors>
