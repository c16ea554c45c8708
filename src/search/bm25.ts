/**
 * BM25's term-frequency part with FTS5's constants (pure), for scoring candidates from the
 * terms stored with each chunk (scores.ts):
 *   score(t) = idf · f·(k1 + 1) / (f + k1·(1 − b + b·D/avgdl))
 * where f is the column-weighted frequency of t in the row and D the row's term count over
 * all columns.
 */

/** FTS5's fixed BM25 constants (not configurable in SQLite), used for its candidates too. */
const BM25_K1 = 1.2
const BM25_B = 0.75

/** Contribution of one term with weighted frequency `freq` to a row's BM25 score. */
export function bm25TermScore(idf: number, freq: number, docTokens: number, avgTokens: number): number {
  if (freq <= 0) return 0
  const norm = BM25_K1 * (1 - BM25_B + (BM25_B * docTokens) / (avgTokens || 1))
  return (idf * (freq * (BM25_K1 + 1))) / (freq + norm)
}
