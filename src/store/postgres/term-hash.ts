/**
 * Two 32-bit hashes of a term for a PostgreSQL chunk row (pure), over its UTF-16 code units,
 * as signed int4: `termHash` (FNV-1a) orders the row's terms (`hashes`) for a binary search,
 * and `termCheck` (a multiply-xorshift hash finished with MurmurHash3's mixer) is kept beside
 * it (`checks`) to confirm the term found there. Only mnemo computes them (a write for the
 * row's terms, a search for its query terms), so they need no twin in SQL.
 *
 * A search trusts the pair (read-sql.ts termAt): two terms share both hashes with a chance of
 * about 2⁻⁶⁴, so a lookup mistakes another term of a 200-term row for the query's at most once
 * in 10¹⁷; even then only the engine's pick of candidates changes, not a score, since search/
 * scores each candidate again from its stored terms. Comparing the text key instead cost about
 * 10 % of a three-term candidate statement (walking the row's text array to the slot).
 */
import { fnv1a } from '../../text/term-count.js'

/** text/term-count.ts's FNV-1a, signed: the same hash write-terms.ts computes in its one-pass scan. */
export const termHash = (term: string): number => fnv1a(term) | 0

export function termCheck(term: string): number {
  let h = 0x9747b28c
  for (let i = 0; i < term.length; i++) {
    h = Math.imul(h ^ term.charCodeAt(i), 0x5bd1e995)
    h ^= h >>> 15
  }
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h | 0
}
