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
 * Loaded at the first search that may use it, then kept current from vector_changes
 * (vector-schema.ts) whenever the index changed; read again whole when it fell behind the
 * log, or when a quarter of its rows are of deleted chunks.
 */
import { quantizeInt8, sparseQuery, topRows, type CodeMatrix } from './int8-codes.js'
import { shardOf } from './vector-repo.js'

/**
 * Most non-zero dimensions, as a fraction of all, for which the pre-selection beats the
 * float scan (its cost grows with them; 64 of 256 reads a quarter of every row's codes).
 */
const SPARSE_MAX_FRACTION = 0.25
/** Shard mark of a row whose chunk lost its vector: never a candidate. */
const DEAD = 255

export type QuantizedSource = {
  /** Of the index's vector layout. */
  dims: number
  shards: number
  /** Changes whenever the index changed (another connection's commits included). */
  generation(): number
  /** Chunks in the index: the copy is made only for indexes of at least `minVectors`. */
  chunks(): number
  /** Every stored vector, one at a time. */
  eachVector(fn: (id: number, embedding: Buffer) => void): void
  /** A stored vector by chunk id (undefined: none). */
  vectorOf(id: number): Buffer | undefined
  /** The change log's bounds and rows (vector-repo.ts). */
  changes: {
    bounds(): { min: number | null; max: number | null }
    after(seq: number): { seq: number; id: number }[]
  }
}

export function createQuantizedVectors(src: QuantizedSource, minVectors: number) {
  const { dims } = src
  let matrix: CodeMatrix = { codes: new Int8Array(0), scales: new Float32Array(0), rows: 0, dims }
  let shardOfRow = new Uint8Array(0)
  let idOfRow = new Float64Array(0)
  const rowOf = new Map<number, number>()
  let dead = 0
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

  /** Makes room for `rows` rows: at least that many (`exact`), else doubling. */
  function grow(rows: number, exact = false): void {
    if (rows <= shardOfRow.length) return
    const capacity = exact ? rows : Math.max(rows, shardOfRow.length * 2, 1024)
    const codes = new Int8Array(capacity * dims)
    codes.set(matrix.codes)
    const scales = new Float32Array(capacity)
    scales.set(matrix.scales)
    matrix = { ...matrix, codes, scales }
    const shards = new Uint8Array(capacity)
    shards.set(shardOfRow)
    shardOfRow = shards
    const ids = new Float64Array(capacity)
    ids.set(idOfRow)
    idOfRow = ids
  }

  function put(id: number, embedding: Buffer): void {
    let row = rowOf.get(id)
    if (row === undefined) {
      row = matrix.rows
      grow(row + 1)
      matrix.rows++
      rowOf.set(id, row)
      idOfRow[row] = id
    }
    const vector = new Float32Array(embedding.buffer, embedding.byteOffset, dims)
    matrix.scales[row] = quantizeInt8(vector, matrix.codes, row * dims)
    shardOfRow[row] = shardOf(id, src.shards)
  }

  function drop(id: number): void {
    const row = rowOf.get(id)
    if (row === undefined) return
    rowOf.delete(id)
    shardOfRow[row] = DEAD
    dead++
  }

  function loadAll(maxSeq: number): void {
    matrix = { codes: new Int8Array(0), scales: new Float32Array(0), rows: 0, dims }
    shardOfRow = new Uint8Array(0)
    idOfRow = new Float64Array(0)
    rowOf.clear()
    dead = 0
    // Changes committed after the bounds were read are applied again next time: put is idempotent.
    cursor = maxSeq
    // Sized once for the index (doubling from nothing left ~1.3× the codes in garbage behind).
    grow(src.chunks(), true)
    src.eachVector(put)
  }

  /** Brings the copy up to the index's current state. */
  function refresh(): void {
    const generation = src.generation()
    if (generation === seenGeneration) return
    seenGeneration = generation
    const { min, max } = src.changes.bounds()
    const behind = max === null || max < cursor || (min !== null && min > cursor + 1)
    if (matrix.rows === 0 || behind || dead * 4 > rowOf.size) {
      loadAll(max ?? 0)
      return
    }
    for (const { seq, id } of src.changes.after(cursor)) {
      const embedding = src.vectorOf(id)
      if (embedding) put(id, embedding)
      else drop(id)
      cursor = seq
    }
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
      refresh()
      if (rowOf.size < minVectors) return null
      const allowed = new Uint8Array(256)
      for (const s of shards ?? Array.from({ length: src.shards }, (_, i) => i)) allowed[s] = 1
      const rows = topRows(matrix, query, n, shardOfRow, allowed)
      return rows.map((row) => idOfRow[row] as number)
    },
    /** Chunks found without a vector when scored (deleted since the copy was read). */
    forget(ids: readonly number[]): void {
      for (const id of ids) drop(id)
    },
  }
}

export type QuantizedVectors = ReturnType<typeof createQuantizedVectors>
