/**
 * The statements of a keyword read on PostgreSQL (index-reads.ts): the terms' statistics,
 * and the candidates ranked with the formula FTS5's bm25() uses (k1 = 1.2, b = 0.75, IDF
 * clamped to 1e-6, the heading column weighted) from each chunk's term counts, so both
 * engines hand search/ the same candidates.
 */
import type { KeywordQuery, KeywordStats } from '../port.js'
import type { Tables } from './database.js'
import { filterSql, HEAD, termAt, termSlot, textColumn, type Scope } from './read-sql.js'
import { termCheck, termHash, termKeySql } from './term-hash.js'

/**
 * The query terms' keys in the scope's index (the GIN index's entries, term-hash.ts), made
 * once a statement (`keys`, after `ix`) from each term's hashes. Terms and limits are read
 * through subqueries (here and in candidates): a plan sized to each query's values cost
 * less than the generic one, so at 100,001 chunks PostgreSQL planned every candidate query
 * again (0.9–2.2 ms a search) instead of keeping one plan per connection.
 */
const keysCte = (terms: readonly { hash: string; check: string }[]) =>
  `keys AS (SELECT ${terms.map((p, i) => `${termKeySql(p.hash, p.check, 'ix.id')} AS k${i}`).join(', ')} FROM ix)`

/**
 * Chunk rows and each term's document frequency (0 when absent) in the index `indexId`
 * (SQL), as StatsColumns.
 */
export const statsSql = (t: Tables, indexId: string, termsParam: number) => `SELECT i.chunk_rows AS "statRows", ARRAY(
    SELECT COALESCE(d.df, 0) FROM unnest((SELECT $${termsParam}::text[])) WITH ORDINALITY AS u(term, ord)
    LEFT JOIN ${t.terms} d ON d.index_id = i.id AND d.term = u.term ORDER BY u.ord) AS "statDfs"
  FROM ${t.indexes} i WHERE i.id = ${indexId}`

/** The columns of statsSql, which every row of a statement asked for `statsOf` carries beside the candidate's. */
export type StatsColumns = { statRows: number; statDfs: number[] }

/** keywordStats() of `statsOf` from a row carrying them (none: the index is gone). */
export const statsOfRow = (row: Partial<StatsColumns> | undefined, statsOf: readonly string[]): KeywordStats => ({
  rows: row?.statRows ?? 0,
  docFreqs: row?.statDfs ?? statsOf.map(() => 0),
  partial: false,
})

/**
 * The ranking statement of a keyword read (index-reads.ts candidates): the best `q.limit`
 * chunks by BM25 over `q.terms`, best first, each chunk's score one expression over its
 * counts of the query terms (each looked up once in `counts`, no grouping), the winners'
 * heads and terms fetched afterwards. With `statsOf`, every row also carries keywordStats()
 * of those terms, and a query without candidates still returns one row, of them alone.
 */
export function rankedStatement(t: Tables, scope: Scope, q: KeywordQuery, statsOf?: readonly string[]) {
  const params: unknown[] = [scope.param, q.terms, q.headingWeight, q.limit]
  const filters = filterSql(q, params)
  const termParams = q.terms.map((term) => {
    params.push(termHash(term), termCheck(term))
    return { hash: `$${params.length - 1}::int4`, check: `$${params.length}::int4` }
  })
  const keyOf = (i: number) => `(SELECT k${i} FROM keys)`
  // Where each term's key is in the chunk's keys, and its counts in `counts` (migrations.ts).
  const counts = termParams.map((_, i) => `${termSlot(keyOf(i))} AS s${i}`).join(', ')
  const at = termParams.map((_, i) => `${termAt(keyOf(i), `s.s${i}`)} AS t${i}`).join(', ')
  const freqs = termParams
    .map(
      (_, i) =>
        `COALESCE(c.counts[2 * n.t${i} - 1], 0)::float8 + $3::float8 * COALESCE(c.counts[2 * n.t${i}], 0)::float8 AS f${i}`,
    )
    .join(', ')
  // The length in float8: `0.75 * <int>` is numeric arithmetic, per row and term (16 % of
  // a three-term statement), and the product is exact in either type, so the same scores.
  const score = termParams
    .map(
      (_, i) => `w.idf[${i + 1}] * (f.f${i} * 2.2) / (f.f${i} + 1.2 * (0.25 + 0.75 * c.token_count::float8 / w.avgdl))`,
    )
    .join(' + ')
  const text = `WITH ix AS (SELECT ${scope.sql} AS id), ${keysCte(termParams)},
     stats AS (
       SELECT i.chunk_rows::float8 AS n,
         CASE WHEN i.chunk_rows > 0 THEN i.token_sum::float8 / i.chunk_rows ELSE 1 END AS avgdl
       FROM ${t.indexes} i, ix WHERE i.id = ix.id),
     w AS (
       SELECT s.avgdl, array_agg(GREATEST(ln((s.n - COALESCE(d.df, 0) + 0.5) / (COALESCE(d.df, 0) + 0.5)), 1e-6)
         ORDER BY u.ord) AS idf
       FROM stats s CROSS JOIN unnest((SELECT $2::text[])) WITH ORDINALITY AS u(term, ord)
       LEFT JOIN ${t.terms} d ON d.index_id = (SELECT id FROM ix) AND d.term = u.term
       GROUP BY s.avgdl),
     best AS (
       SELECT c.id, ${score} AS score
       FROM ${t.chunks} c CROSS JOIN w
       CROSS JOIN LATERAL (SELECT ${counts} OFFSET 0) s
       CROSS JOIN LATERAL (SELECT ${at} OFFSET 0) n
       CROSS JOIN LATERAL (SELECT ${freqs} OFFSET 0) f
       WHERE c.index_id = (SELECT id FROM ix) AND c.keys && ARRAY[${termParams.map((_, i) => keyOf(i)).join(', ')}]${filters}
       ORDER BY score DESC, c.id LIMIT (SELECT $4::int))`
  const winners = `SELECT ${HEAD}, c.body_terms AS "bodyTerms", c.heading_terms AS "headingTerms"${textColumn(q)}`
  if (!statsOf) {
    return {
      text: `${text} ${winners} FROM best JOIN ${t.chunks} c ON c.id = best.id ORDER BY best.score DESC, c.id`,
      params,
    }
  }
  params.push(statsOf)
  return {
    text: `${text}, asked AS MATERIALIZED (${statsSql(t, '(SELECT id FROM ix)', params.length)})
      SELECT a."statRows", a."statDfs", r.* FROM asked a LEFT JOIN LATERAL (
        ${winners}, best.score FROM best JOIN ${t.chunks} c ON c.id = best.id) r ON true
      ORDER BY r.score DESC, r.id`,
    params,
  }
}
