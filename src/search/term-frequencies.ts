/**
 * Each query term's frequency in a keyword candidate, from the terms stored with it, a
 * heading's occurrence counting `headingWeight` times (pure). Two ways that give the same
 * counts: a native `indexOf` scan per term (countTerm), whose cost grows with the terms, or
 * one pass over the candidate's terms for all of them (createTermCounter), whose cost does
 * not. On the SciFact claims' 24 candidates the two meet at 8–10 terms: one term 38 against
 * 198 µs, fourteen 324 against 229 µs (BENCHMARKS.md, issue 35).
 */
import { countTerm, createTermCounter } from '../text/term-count.js'

/** Query terms from which candidates are counted in one pass. */
export const ONE_PASS_TERMS = 10

/** A candidate's two term strings. */
export type TermStrings = { bodyTerms: string; headingTerms: string }

/**
 * For `terms`, a function that takes a candidate and returns its frequency of the i-th term;
 * `onePassFrom`: the number of terms from which the one pass is used (ONE_PASS_TERMS).
 */
export function termFrequencies(
  terms: readonly string[],
  headingWeight: number,
  onePassFrom = ONE_PASS_TERMS,
): (row: TermStrings) => (i: number) => number {
  if (terms.length < onePassFrom) {
    return (row) => (i) => {
      const term = terms[i] as string
      return countTerm(row.bodyTerms, term) + headingWeight * countTerm(row.headingTerms, term)
    }
  }
  const counter = createTermCounter(terms)
  // A term the query names twice is counted at its first index (createTermCounter).
  const first = terms.map((term) => terms.indexOf(term))
  const found = new Float64Array(terms.length)
  return (row) => {
    found.fill(0)
    counter.count(row.bodyTerms, row.headingTerms, (t, body, heading) => {
      found[t] = body + headingWeight * heading
    })
    return (i) => found[first[i] as number] as number
  }
}
