/**
 * A term's 32-bit hash for the `hashes` of a PostgreSQL chunk row (pure): FNV-1a over its
 * UTF-16 code units, as a signed int4. Only mnemo computes it (a write for the row's terms,
 * a search for its query terms), so it needs no twin in SQL. A hash only points at a slot:
 * the term there is compared before its counts are read (read-sql.ts termAt).
 */
export function termHash(term: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < term.length; i++) {
    h ^= term.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h | 0
}
