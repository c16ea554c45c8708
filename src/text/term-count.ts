/**
 * Counting a term in a chunk's analysed terms (pure): the space-separated strings the
 * analyzer emits and FTS5 indexes (store/sqlite/schema.ts), which search re-scores
 * candidates from and SQLite's impact lists rank them from.
 */

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
