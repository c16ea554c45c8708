/**
 * Impacts of postings (pure), for the impact lists of common terms that both engines keep
 * (postgres/impact-lists.ts, sqlite/impact-lists.ts). A
 * posting's impact is BM25's term-frequency part against a fixed chunk length, so it is
 * known when the chunk is written and never changes. Candidates are ranked with FTS5's
 * bm25(), whose length normalisation uses the corpus's average length instead: the impact
 * orders a term's postings, and impactBound says how high the ranked term-frequency part of
 * a posting can be whose impact is at most a given one, so a read of a term's best postings
 * knows when the postings it has not read cannot reach its results.
 */

/** FTS5's fixed BM25 constants (search/bm25.ts); candidates are ranked with them. */
const K1 = 1.2
const B = 0.75
/**
 * Chunk length (analysed terms) impacts normalise against when no list says otherwise, as
 * absolute scores do (search/scores.ts REFERENCE_TOKENS): lists take the corpus's average
 * when built, since the closer to it, the fewer postings a read needs past the results (at or
 * above it, impactBound is the impact itself).
 */
export const IMPACT_REFERENCE_TOKENS = 250
/** Weight of heading occurrences in an impact: the one searches rank with (search/keyword-search.ts). */
export const IMPACT_HEADING_WEIGHT = 2
/**
 * Relative margin on bounds: impacts computed in SQL and in JavaScript may differ in the last
 * bit, and a bound must never be below a posting it stands for.
 */
const BOUND_MARGIN = 1e-9

/**
 * Impact of a term found `body` times in a chunk's body and `heading` times in its headings
 * and path, in a chunk of `tokens` analysed terms, against chunks of `reference` terms
 * (default IMPACT_REFERENCE_TOKENS; both engines' lists take the corpus's average when built):
 * in (0, K1 + 1), higher is better.
 */
export function postingImpact(
  body: number,
  heading: number,
  tokens: number,
  reference = IMPACT_REFERENCE_TOKENS,
): number {
  const freq = body + IMPACT_HEADING_WEIGHT * heading
  return (freq * (K1 + 1)) / (freq + K1 * (1 - B + (B * tokens) / reference))
}

/**
 * Highest term-frequency part of FTS5's bm25() (its score over the term's IDF), for corpus
 * average length `avgTokens` and heading weight `headingWeight`, of any posting whose impact
 * against `reference` terms (postingImpact) is at most `impact`. With f the weighted
 * frequency and A(avg) = K1·(1 − B + B·D/avg): the impact fixes f/A(R), f/A(avg) ≤ f/A(R) ·
 * max(1, avg/R), a heading weight w scales f by at most max(1, w/W), and the part,
 * (K1 + 1)·x/(1 + x) with x = f/A, grows with x.
 */
export function impactBound(
  impact: number,
  avgTokens: number,
  headingWeight: number,
  reference = IMPACT_REFERENCE_TOKENS,
): number {
  if (impact >= K1 + 1) return Infinity
  const ratio = impact / (K1 + 1 - impact)
  const x = ratio * Math.max(1, headingWeight / IMPACT_HEADING_WEIGHT) * Math.max(1, avgTokens / reference)
  return (((K1 + 1) * x) / (1 + x)) * (1 + BOUND_MARGIN)
}

/**
 * Postings a search for `limit` candidates reads from a list of `keep` (which may grow to
 * twice that before it is cut, on PostgreSQL): on the benchmark corpus (BENCHMARKS.md), 64
 * told the best 24 for all but one query in 265, so twice the limit and 64 more leave room
 * for filters.
 */
export const listRead = (limit: number, keep: number): number => Math.min(2 * keep, 2 * limit + 64)
