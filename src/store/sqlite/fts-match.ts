/**
 * Builds the FTS5 MATCH expression for analysed query terms. Every term is a quoted string
 * joined with OR, so user text can never act as FTS5 syntax (`"`, `*`, `NEAR`, `:`, `-`,
 * parentheses are ordinary characters to the analyzer) and a chunk matching only some terms
 * is still found; BM25 then ranks chunks by how many and how rare the matched terms are.
 */

const quote = (s: string) => `"${s.replaceAll('"', '""')}"`

/** The MATCH expression, or null when there are no terms. */
export function ftsMatch(terms: readonly string[]): string | null {
  return terms.length === 0 ? null : terms.map(quote).join(' OR ')
}
