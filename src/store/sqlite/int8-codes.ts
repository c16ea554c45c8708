/**
 * The maths of the quantised pre-selection (quantized-vectors.ts), pure: a vector as int8
 * codes with one scale per vector, a query as its non-zero dimensions, and the rows whose
 * codes score highest against that query. The estimate only chooses candidates; their exact
 * cosine distances are computed from the stored float vectors afterwards.
 */

/** Largest code: a vector's largest component maps to ±127 (symmetric, so −128 is unused). */
const CODE_MAX = 127

/**
 * Writes `vector` as int8 codes into `codes` at `offset` and returns the scale that turns a
 * code back into its component (component ≈ code × scale). The scale is per vector
 * (largest |component| / 127), so every vector uses the whole code range; a zero vector
 * has scale 0 and zero codes.
 */
export function quantizeInt8(vector: Float32Array, codes: Int8Array, offset: number): number {
  // Plain indexed loops: a copy of 100,000 vectors of 256 dimensions is quantised at once.
  let max = 0
  for (let i = 0; i < vector.length; i++) {
    const x = Math.abs(vector[i] as number)
    if (x > max) max = x
  }
  if (max === 0) {
    codes.fill(0, offset, offset + vector.length)
    return 0
  }
  const toCode = CODE_MAX / max
  for (let i = 0; i < vector.length; i++) codes[offset + i] = Math.round((vector[i] as number) * toCode)
  return max / CODE_MAX
}

/** A query's non-zero dimensions and their values. */
export type SparseQuery = { index: Int32Array; value: Float32Array }

/**
 * The query's non-zero dimensions when there are at most `maxFraction` × dims of them, else
 * null: the pre-selection reads one code per non-zero dimension of every row, which beats
 * sqlite-vec's full float scan only while they are few (a `hash` query vector has 7–35 of 256).
 */
export function sparseQuery(vector: Float32Array, maxFraction: number): SparseQuery | null {
  const nonZero: number[] = []
  for (let i = 0; i < vector.length; i++) if (vector[i] !== 0) nonZero.push(i)
  if (nonZero.length === 0 || nonZero.length > vector.length * maxFraction) return null
  return { index: Int32Array.from(nonZero), value: Float32Array.from(nonZero, (i) => vector[i] as number) }
}

/** Vectors held as codes: row r is codes[r·dims, (r+1)·dims) with scales[r]. */
export type CodeMatrix = { codes: Int8Array; scales: Float32Array; rows: number; dims: number }

/**
 * Indexes of the `n` rows with the highest estimated dot product with `query` (scale × Σ
 * value × code), best first (ties: lower row first), among the rows whose group (a shard,
 * or a mark) is allowed: `allowed[group[row]] === 1`.
 */
export function topRows(
  matrix: CodeMatrix,
  query: SparseQuery,
  n: number,
  group: Uint8Array,
  allowed: Uint8Array,
): number[] {
  const { codes, scales, rows, dims } = matrix
  const { index, value } = query
  const terms = index.length
  // Kept sorted, best first; a row enters only when it beats the n-th.
  const bestRow = new Int32Array(n)
  const bestScore = new Float64Array(n).fill(-Infinity)
  let kept = 0
  for (let r = 0, base = 0; r < rows; r++, base += dims) {
    if (allowed[group[r] as number] !== 1) continue
    let dot = 0
    for (let j = 0; j < terms; j++) dot += (value[j] as number) * (codes[base + (index[j] as number)] as number)
    const score = dot * (scales[r] as number)
    if (kept === n && score <= (bestScore[n - 1] as number)) continue
    let at = kept < n ? kept++ : n - 1
    for (; at > 0 && (bestScore[at - 1] as number) < score; at--) {
      bestScore[at] = bestScore[at - 1] as number
      bestRow[at] = bestRow[at - 1] as number
    }
    bestScore[at] = score
    bestRow[at] = r
  }
  return Array.from(bestRow.subarray(0, kept))
}
