/**
 * Query planning for BM25 over FTS5 (pure). FTS5 scores every row that matches any OR'd
 * term, about 0.6 µs per row, so a query with words found in most chunks ("memory",
 * "agent", 记忆) would cost milliseconds on a large index. A query whose terms fit a
 * budget of postings (summed document frequencies) — every query on a small workspace —
 * runs exactly. Otherwise:
 *  - noise terms, found in half the chunks or more, are set aside: FTS5 gives them an IDF
 *    of 1e-6, so they cannot change a ranking that has any other term in it;
 *  - of the remaining informative terms, FTS5 ranks with the rarest ones that fit the
 *    budget (selective) and the others (common) are scored on the candidates afterwards.
 */

export type TermStat = { term: string; docFreq: number }

export type KeywordPlan =
  /** FTS5 ranks with `selective`; `common` terms are added to the candidates' scores. */
  | { kind: 'ranked'; selective: string[]; common: TermStat[] }
  /** Every term is noise: take matching chunks unranked and score them with `noise`. */
  | { kind: 'noise'; noise: TermStat[] }
  /** No term occurs anywhere. */
  | { kind: 'empty' }

export type RankedPlan = Extract<KeywordPlan, { kind: 'ranked' }>

/** True when FTS5's IDF for the term is clamped to 1e-6 (document frequency ≥ N/2). */
export function isNoise(docFreq: number, rows: number): boolean {
  return docFreq + 0.5 >= rows - docFreq + 0.5
}

export function planKeywordQuery(stats: readonly TermStat[], rows: number, postingBudget: number): KeywordPlan {
  const present = stats.filter((s) => s.docFreq > 0)
  if (present.length === 0) return { kind: 'empty' }
  const total = present.reduce((sum, s) => sum + s.docFreq, 0)
  if (total <= postingBudget) return { kind: 'ranked', selective: present.map((s) => s.term), common: [] }
  const informative = present.filter((s) => !isNoise(s.docFreq, rows))
  if (informative.length === 0) return { kind: 'noise', noise: present }
  const byRarity = [...informative].sort((a, b) => a.docFreq - b.docFreq)
  const selective: string[] = []
  const common: TermStat[] = []
  let postings = 0
  for (const s of byRarity) {
    if (selective.length === 0 || postings + s.docFreq <= postingBudget) {
      selective.push(s.term)
      postings += s.docFreq
    } else {
      common.push(s)
    }
  }
  return { kind: 'ranked', selective, common }
}

/**
 * Whether two plans rank with the same terms in the same order (the order FTS5 and
 * PostgreSQL add their scores in) and leave the same terms to re-scoring.
 */
export function samePlan(a: KeywordPlan, b: KeywordPlan): boolean {
  if (a.kind !== 'ranked' || b.kind !== 'ranked') return false
  const same = (x: readonly string[], y: readonly string[]) => x.length === y.length && x.every((t, i) => t === y[i])
  return (
    same(a.selective, b.selective) &&
    same(
      a.common.map((c) => c.term),
      b.common.map((c) => c.term),
    )
  )
}
