/**
 * Score mapping (pure). BM25 is unbounded and its scale depends on corpus size: in a
 * workspace of a few chunks most terms get an IDF near zero, so any fixed curve
 * (1/(1+x), x/(1+x)) would score every hit near one constant. textScore is therefore
 * relative to the best hit of the same query: best = 1, the rest in proportion to their
 * BM25 — monotonic, in (0, 1], and comparable with minScore whatever the corpus size.
 */

/** textScore for each BM25 score (≥ 0, higher is better), in the same order. */
export function relativeScores(scores: readonly number[]): number[] {
  const best = Math.max(0, ...scores)
  if (best === 0) return scores.map(() => 1)
  return scores.map((s) => Math.max(0, s) / best)
}

/** Rounds a score for responses (6 decimals keeps ordering, drops float noise). */
export function roundScore(score: number): number {
  return Math.round(score * 1e6) / 1e6
}
