/**
 * A term's key in a PostgreSQL chunk row (pure, and its twin in SQL): two 32-bit hashes of
 * the term over its UTF-16 code units, as signed int4s, made one int8 with the index's id.
 * `termHash` (FNV-1a) is the key's high half, so a row's keys in ascending order are its
 * terms by hash, found by a binary search; `termCheck` (a multiply-xorshift hash finished
 * with MurmurHash3's mixer) xor the index's id is the low half, unsigned, so one term has a
 * different key in each index, and a GIN lookup reads only its own index's postings. Only
 * mnemo computes the hashes (a write for the row's terms, a search for its query terms); the
 * key is made of them in SQL too (termKeySql), where the index's id is known.
 *
 * A search trusts the key (read-sql.ts termAt): two terms share both hashes with a chance of
 * about 2⁻⁶⁴, so a lookup mistakes another term of a 200-term row for the query's at most once
 * in 10¹⁷; even then only the engine's pick of candidates changes, not a score, since search/
 * scores each candidate again from its stored terms. As text (`<index id>:<term>`) the GIN
 * index's upkeep was about two fifths of a cold index's database time (BENCHMARKS.md).
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

/**
 * The key of the term whose hashes are `hash` and `check` in the index `indexId`, as SQL over
 * three SQL expressions: termHash in the high 32 bits, termCheck xor the index's id (its low
 * 32 bits) in the low 32, unsigned. Every operator is parenthesised: PostgreSQL gives `<<`,
 * `#`, `&` and `|` one precedence, left to right.
 */
export const termKeySql = (hash: string, check: string, indexId: string): string =>
  `((((${hash})::int8) << 32) | ((((${check})::int8) # ((${indexId})::int8)) & 4294967295))`
