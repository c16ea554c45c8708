/**
 * FTS5's bm25() for one term, computed outside FTS5 (pure). FTS5 finds a term's IDF by
 * reading every row holding the term (xQueryPhrase) before it scores the first one: 0.25 µs
 * a posting, 75 ms for a term in 300,000 chunks even when only a few hundred rows are
 * scored. Impact lists (list-candidates.ts) score their few candidates here instead, with
 * the same operations in the same order as fts5_aux.c (fts5Bm25Function), so every rank is
 * the one FTS5 gives to the last bit: ties, and so the order of equal ranks by id, are kept.
 * The IDF's logarithm is SQLite's ln(), the C library's log() that FTS5 calls.
 */

/** fts5_aux.c's constants. */
const K1 = 1.2
const B = 0.75

/**
 * FTS5's rank (negative bm25, lower is better) of a row holding the term `body` times in
 * the first column and `heading` times in the second (weighted `headingWeight`), `tokens`
 * terms long, in an index whose rows average `avgTokens` terms, for a term of IDF `idf`.
 */
export function fts5Rank(
  idf: number,
  body: number,
  heading: number,
  headingWeight: number,
  tokens: number,
  avgTokens: number,
): number {
  // FTS5 adds each occurrence's column weight in turn (first column first).
  let freq = 0
  for (let i = 0; i < body; i++) freq += 1.0
  for (let i = 0; i < heading; i++) freq += headingWeight
  const score = idf * ((freq * (K1 + 1.0)) / (freq + K1 * (1 - B + (B * tokens) / avgTokens)))
  return -1.0 * score
}

/** The averages record of chunks_fts (FTS5_AVERAGES_ROWID), as `block`. */
export const AVERAGES_SQL = 'SELECT block FROM chunks_fts_data WHERE id = 1'

/**
 * Row count and total token count of an FTS5 index, from its averages record (the
 * `%_data` row with id 1): varints, the row count first, then each column's total.
 */
export function parseAverages(block: Uint8Array): { rows: number; tokens: number } {
  const [rows = 0, ...columns] = varints(block)
  return { rows, tokens: columns.reduce((sum, n) => sum + n, 0) }
}

/**
 * A row's length as FTS5 ranks it, from its `%_docsize` record (each column's token count,
 * varints): what bm25() divides by, which the analysed terms' count (chunks.token_count)
 * equals except where FTS5's tokenizer splits or folds a character the analyzer does not.
 */
export const rowTokens = (sz: Uint8Array): number => varints(sz).reduce((sum, n) => sum + n, 0)

/** SQLite's varints: 7 bits a byte, high bits first (the 9-byte form starts at 2^56). */
function varints(block: Uint8Array): number[] {
  const values: number[] = []
  let at = 0
  while (at < block.length) {
    let value = 0
    for (;;) {
      const byte = block[at++] ?? 0
      value = value * 128 + (byte & 0x7f)
      if ((byte & 0x80) === 0 || at >= block.length) break
    }
    values.push(value)
  }
  return values
}

/** The average row length FTS5 ranks with: its total tokens over its rows. */
export const fts5AvgTokens = (avg: { rows: number; tokens: number }): number => avg.tokens / avg.rows
