/**
 * The rows of a quantised copy (quantized-vectors.ts): each stored vector's int8 codes and
 * scale (int8-codes.ts), its chunk id and its shard, found by chunk id, for the vectors of the
 * shards it holds (others are left out: each read thread holds the shards it scans). A chunk
 * that lost its vector keeps its row, marked dead, until the copy is read again whole.
 */
import { quantizeInt8, topRows, type CodeMatrix, type SparseQuery } from './int8-codes.js'
import { shardOf } from './vector-repo.js'

/** Shard mark of a dead row: never a candidate. */
const DEAD = 255
/**
 * How much room a full copy makes at once (× its rows): doubling, a copy of a million
 * 256-dimension codes read just before one more vector came would have taken 512 MB where
 * it needs 256.
 */
const GROWTH = 1.25
/** Fewest rows a copy makes room for at once. */
const MIN_GROWTH_ROWS = 1024

/** `held`: the shards whose vectors it keeps; `capacity`: rows made room for at first. */
export function createCodeRows(dims: number, shards: number, held: readonly number[], capacity: number) {
  const holds = new Uint8Array(256)
  for (const s of held) holds[s] = 1
  const matrix: CodeMatrix = {
    codes: new Int8Array(capacity * dims),
    scales: new Float32Array(capacity),
    rows: 0,
    dims,
  }
  let shardOfRow = new Uint8Array(capacity)
  let idOfRow = new Float64Array(capacity)
  const rowOf = new Map<number, number>()
  let dead = 0

  /** Makes room for one more row. */
  function grow(): void {
    if (matrix.rows < shardOfRow.length) return
    const rows = Math.max(Math.ceil(shardOfRow.length * GROWTH), shardOfRow.length + MIN_GROWTH_ROWS)
    const codes = new Int8Array(rows * dims)
    codes.set(matrix.codes)
    matrix.codes = codes
    const scales = new Float32Array(rows)
    scales.set(matrix.scales)
    matrix.scales = scales
    const marks = new Uint8Array(rows)
    marks.set(shardOfRow)
    shardOfRow = marks
    const ids = new Float64Array(rows)
    ids.set(idOfRow)
    idOfRow = ids
  }

  return {
    /** Rows of chunks with a vector, and dead rows. */
    live: () => rowOf.size,
    dead: () => dead,
    /** Stores (or replaces) the codes of a chunk's vector (float32 bytes), if its shard is held. */
    put(id: number, embedding: Buffer): void {
      const shard = shardOf(id, shards)
      if (holds[shard] !== 1) return
      let row = rowOf.get(id)
      if (row === undefined) {
        grow()
        row = matrix.rows++
        rowOf.set(id, row)
        idOfRow[row] = id
      }
      const vector = new Float32Array(embedding.buffer, embedding.byteOffset, dims)
      matrix.scales[row] = quantizeInt8(vector, matrix.codes, row * dims)
      shardOfRow[row] = shard
    },
    /** Marks a chunk's row dead (its vector is gone). */
    drop(id: number): void {
      const row = rowOf.get(id)
      if (row === undefined) return
      rowOf.delete(id)
      shardOfRow[row] = DEAD
      dead++
    },
    /** Chunk ids of the `n` live rows of the given shards (held ones) scoring best against `query`. */
    top(query: SparseQuery, n: number, of: readonly number[]): number[] {
      const allowed = new Uint8Array(256)
      for (const s of of) allowed[s] = 1
      return topRows(matrix, query, n, shardOfRow, allowed).map((row) => idOfRow[row] as number)
    },
  }
}

export type CodeRows = ReturnType<typeof createCodeRows>
