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

/**
 * Each term's occurrences in a chunk's body and in its headings and path, as [body, heading],
 * from the two space-separated term strings; `wanted` keeps only the terms it accepts.
 */
export function columnCounts(
  body: string,
  heading: string,
  wanted: (term: string) => boolean = () => true,
): Map<string, [number, number]> {
  const counts = new Map<string, [number, number]>()
  const add = (terms: string, column: 0 | 1) => {
    if (terms === '') return
    for (const term of terms.split(' ')) {
      if (!wanted(term)) continue
      let c = counts.get(term)
      if (!c) counts.set(term, (c = [0, 0]))
      c[column]++
    }
  }
  add(body, 0)
  add(heading, 1)
  return counts
}
