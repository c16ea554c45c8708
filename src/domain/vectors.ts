/**
 * Vector hygiene at the provider boundary (pure): every vector that enters mnemo has the
 * expected dimension, only finite numbers, and unit length, so cosine distance is
 * meaningful and a wrong or corrupt provider answer can never be stored next to good ones.
 */

/** Why a provider's vector was refused; null when it is fine. */
export function vectorProblem(values: ArrayLike<number>, dims: number): string | null {
  if (values.length !== dims) return `expected ${dims} dimensions, got ${values.length}`
  let sumSquares = 0
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number
    if (!Number.isFinite(v)) return `non-finite value at index ${i}`
    sumSquares += v * v
  }
  return sumSquares > 0 ? null : 'zero vector'
}

/** A unit-length Float32Array copy of `values`, or throws with the problem. */
export function normalizeVector(values: ArrayLike<number>, dims: number): Float32Array {
  const problem = vectorProblem(values, dims)
  if (problem) throw new Error(problem)
  let sumSquares = 0
  for (let i = 0; i < values.length; i++) sumSquares += (values[i] as number) ** 2
  const norm = Math.sqrt(sumSquares)
  const out = new Float32Array(dims)
  for (let i = 0; i < dims; i++) out[i] = (values[i] as number) / norm
  return out
}

/** Cosine similarity of two unit vectors (their dot product). */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0
  for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number)
  return s
}

/** True when every component is 0 (text with nothing to embed). */
export function isZeroVector(v: Float32Array): boolean {
  for (let i = 0; i < v.length; i++) if (v[i] !== 0) return false
  return true
}
