/**
 * Score mapping (pure). FTS5's bm25() is negative and unbounded, and its scale depends on
 * corpus size: in a workspace of a few chunks most terms get an IDF near zero, so any fixed
 * curve (1/(1+x), x/(1+x)) would score every hit near one constant. textScore is therefore
 * relative to the best hit of the same query: best = 1, the rest in proportion to their
 * BM25 — monotonic, in (0, 1], and comparable with minScore whatever the corpus size.
 */

/** textScore for each bm25() rank, in the same order; ranks are ≤ 0, lower is better. */
export function bm25ToTextScores(ranks: readonly number[]): number[] {
  const strengths = ranks.map((r) => Math.max(0, -r))
  const best = Math.max(0, ...strengths)
  if (best === 0) return ranks.map(() => 1)
  return strengths.map((s) => s / best)
}

/** Rounds a score for responses (6 decimals keeps ordering, drops float noise). */
export function roundScore(score: number): number {
  return Math.round(score * 1e6) / 1e6
}
