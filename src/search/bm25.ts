/**
 * BM25 exactly as SQLite FTS5's built-in bm25() computes it (pure), so scores computed
 * here add up with scores FTS5 returns for the other terms of the same query:
 *   idf(t)   = ln((N − n + 0.5) / (n + 0.5)), or 1e-6 when that is ≤ 0
 *   score(t) = idf · f·(k1 + 1) / (f + k1·(1 − b + b·D/avgdl))
 * where f is the column-weighted frequency of t in the row and D the row's term count over
 * all columns. FTS5 negates the sum; these functions return it positive.
 */

/** FTS5's fixed BM25 constants (not configurable in SQLite). */
export const BM25_K1 = 1.2
export const BM25_B = 0.75
/** FTS5 replaces a non-positive IDF (terms in half the rows or more) with this. */
const MIN_IDF = 1e-6

export function bm25Idf(rows: number, docFreq: number): number {
  const idf = Math.log((rows - docFreq + 0.5) / (docFreq + 0.5))
  return idf > 0 ? idf : MIN_IDF
}

/** Contribution of one term with weighted frequency `freq` to a row's BM25 score. */
export function bm25TermScore(idf: number, freq: number, docTokens: number, avgTokens: number): number {
  if (freq <= 0) return 0
  const norm = BM25_K1 * (1 - BM25_B + (BM25_B * docTokens) / (avgTokens || 1))
  return (idf * (freq * (BM25_K1 + 1))) / (freq + norm)
}

/** Occurrences of `term` as a whole term in a space-separated term string. */
export function countTerm(terms: string, term: string): number {
  let count = 0
  let at = terms.indexOf(term)
  while (at >= 0) {
    const end = at + term.length
    if ((at === 0 || terms.charCodeAt(at - 1) === 32) && (end === terms.length || terms.charCodeAt(end) === 32)) count++
    at = terms.indexOf(term, end)
  }
  return count
}
