/**
 * Counting a term in a chunk's analysed terms (pure): the strings the analyzer emits and
 * FTS5 indexes (store/sqlite/schema.ts), which search re-scores candidates from and SQLite's
 * impact lists rank them from. Terms are separated by a space, or by a newline where a line
 * of the text ends (line-terms.ts); both separate terms alike here and in FTS5.
 */

const SPACE = 32
const NEWLINE = 10
const isSeparator = (code: number): boolean => code === SPACE || code === NEWLINE

/** Where `term` (not empty) next occurs as a whole term in a term string, from `from` on; -1: nowhere. */
export function wholeTermAt(terms: string, term: string, from: number): number {
  for (let at = terms.indexOf(term, from); at >= 0; at = terms.indexOf(term, at + term.length)) {
    const end = at + term.length
    if (
      (at === 0 || isSeparator(terms.charCodeAt(at - 1))) &&
      (end === terms.length || isSeparator(terms.charCodeAt(end)))
    )
      return at
  }
  return -1
}

/** Occurrences of `term` as a whole term in a term string. */
export function countTerm(terms: string, term: string): number {
  let count = 0
  for (let at = wholeTermAt(terms, term, 0); at >= 0; at = wholeTermAt(terms, term, at + term.length)) count++
  return count
}

/** The terms of a term string in order, however it separates them. */
export const termsOf = (terms: string): string[] => terms.split(/[ \n]/).filter((term) => term !== '')

/**
 * Each term's occurrences in a chunk's body and in its headings and path, as [body, heading],
 * from the two term strings; `wanted` keeps only the terms it accepts.
 */
export function columnCounts(
  body: string,
  heading: string,
  wanted: (term: string) => boolean = () => true,
): Map<string, [number, number]> {
  const counts = new Map<string, [number, number]>()
  const add = (terms: string, column: 0 | 1) => {
    for (const term of termsOf(terms)) {
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

const FNV_OFFSET = 0x811c9dc5
const FNV_PRIME = 0x01000193
/** FNV_OFFSET as a signed 32-bit value: a hash that starts as a double stays one in a loop, 1.3 times as slow. */
const FNV_START = FNV_OFFSET | 0

/**
 * FNV-1a over the UTF-16 code units of `term`, as unsigned 32 bits: what createTermCounter
 * finds terms by, and PostgreSQL's rows order their terms by (store/postgres/term-hash.ts).
 */
export function fnv1a(term: string): number {
  let hash = FNV_OFFSET
  for (let i = 0; i < term.length; i++) hash = Math.imul(hash ^ term.charCodeAt(i), FNV_PRIME)
  return hash >>> 0
}

/**
 * Calls `take` with the bounds of each term of a term string and its FNV-1a
 * hash (fnv1a's, unsigned), computed as its characters are read: a term is found by its
 * hash without making its string.
 */
export function forEachHashedTerm(text: string, take: (start: number, end: number, hash: number) => void): void {
  // As in createTermCounter's loop: constants copied in, the hash kept in 32 bits.
  const [space, newline, prime, fresh] = [SPACE, NEWLINE, FNV_PRIME, FNV_START]
  const end = text.length
  let start = 0
  let hash = fresh
  for (let i = 0; i <= end; i++) {
    const code = i < end ? text.charCodeAt(i) : space
    if (code !== space && code !== newline) {
      hash = Math.imul(hash ^ code, prime)
      continue
    }
    if (i > start) take(start, i, hash >>> 0)
    start = i + 1
    hash = fresh
  }
}

/**
 * Counts the terms of a fixed set in chunks' two term strings, in one pass over their
 * characters: each term is hashed as it is read and looked up by its hash in an
 * open-addressed table (then compared), so no term string, map lookup or call is made per
 * term read. What columnCounts with `wanted` gives; the impact lists' build reads every chunk
 * this way (store/sqlite/impact-lists.ts), and a search of many terms its candidates
 * (search/term-frequencies.ts): on the SciFact claims' 24 candidates, 0.6 of the time of
 * counting each term with countTerm (BENCHMARKS.md, issue 35). A term named twice in `terms`
 * is counted at its first index. `bucket` groups hashes further (tests make every term
 * collide with it).
 */
export function createTermCounter(terms: readonly string[], bucket?: (hash: number) => number) {
  // Slots hold 1 + a term's index (0: empty), at its key's slot or the next free one; at
  // most a quarter full, so a probe for a term not in the set mostly ends at its first slot.
  let size = 8
  while (size < 4 * terms.length) size *= 2
  const mask = size - 1
  const slots = new Int32Array(size)
  const keys = new Int32Array(terms.length)
  terms.forEach((term, i) => {
    const key = (bucket ? bucket(fnv1a(term)) : fnv1a(term)) | 0
    keys[i] = key
    let slot = key & mask
    for (; slots[slot] !== 0; slot = (slot + 1) & mask) if (terms[(slots[slot] as number) - 1] === term) return
    slots[slot] = i + 1
  })
  const body = new Int32Array(terms.length)
  const heading = new Int32Array(terms.length)
  /** Terms counted in the chunk at hand, in the order first found. */
  const found: number[] = []

  /** Adds the set's terms in `text` to `counts` (`other`: the other column's counts). */
  function countIn(text: string, counts: Int32Array, other: Int32Array): void {
    // forEachHashedTerm's loop, inlined: through it, a call per term read to a callback that
    // differs by caller made counting up to 1.4 times as slow. Module constants read in the
    // loop cost V8 a load and an initialisation check each time; copies in the function fold
    // away (a fifth of the loop's time).
    const [space, newline, prime, fresh] = [SPACE, NEWLINE, FNV_PRIME, FNV_START]
    const end = text.length
    let start = 0
    let hash = fresh
    for (let i = 0; i <= end; i++) {
      const code = i < end ? text.charCodeAt(i) : space
      if (code !== space && code !== newline) {
        hash = Math.imul(hash ^ code, prime)
        continue
      }
      if (i > start) {
        const key = bucket === undefined ? hash : bucket(hash >>> 0) | 0
        for (let slot = key & mask; slots[slot] !== 0; slot = (slot + 1) & mask) {
          const t = (slots[slot] as number) - 1
          if (keys[t] !== key) continue
          const term = terms[t] as string
          if (term.length !== i - start || !text.startsWith(term, start)) continue
          if (counts[t] === 0 && other[t] === 0) found.push(t)
          counts[t] = (counts[t] as number) + 1
          break
        }
      }
      start = i + 1
      hash = fresh
    }
  }

  return {
    /**
     * Calls `take` with the index in `terms` and the counts in the body and in the headings
     * of each term of the set the chunk holds, in the order first found (body first).
     */
    count(bodyTerms: string, headingTerms: string, take: (term: number, body: number, heading: number) => void): void {
      countIn(bodyTerms, body, heading)
      countIn(headingTerms, heading, body)
      for (const t of found) {
        take(t, body[t] as number, heading[t] as number)
        body[t] = 0
        heading[t] = 0
      }
      found.length = 0
    },
  }
}
