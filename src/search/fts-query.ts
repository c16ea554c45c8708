/**
 * Builds the FTS5 MATCH expression for a query. Every term is a quoted string joined with
 * OR, so user text can never act as FTS5 syntax (`"`, `*`, `NEAR`, `:`, `-`, parentheses
 * are ordinary characters to the analyzer) and a chunk matching only some terms is still
 * found; BM25 then ranks chunks by how many and how rare the matched terms are. CJK
 * phrases (consecutive bigrams) are added as extra OR terms that reward exact substrings.
 */
import type { QueryTerms } from '../text/analyzer.js'

const quote = (s: string) => `"${s.replaceAll('"', '""')}"`

/** The MATCH expression, or null when the query has no searchable terms. */
export function buildFtsQuery(q: QueryTerms): string | null {
  if (q.terms.length === 0) return null
  const parts = q.terms.map(quote)
  for (const phrase of q.phrases) parts.push(quote(phrase.join(' ')))
  return parts.join(' OR ')
}
