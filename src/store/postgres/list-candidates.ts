/**
 * Keyword candidates of a one-term query from the term's impact list (impact-lists.ts): the
 * list's best `read` postings are scored with FTS5's bm25() as index-reads.ts scores them
 * (the same SQL expression on the same counts, so the same numbers), the best `limit` that
 * pass the filters are kept, and they are the answer when the last of them scores above
 * what any posting not read can (impactBound). Otherwise (no list, filters that pass too
 * few, a bound not yet beaten) the caller scans every chunk holding the term, as before.
 * A common term then costs a few hundred postings read from an index, not every chunk
 * holding it.
 */
import type { KeywordCandidate, KeywordQuery, KeywordStats } from '../port.js'
import type { Queryable, Tables } from './database.js'
import { IMPACT_REFERENCE_TOKENS, impactBound } from '../impact.js'
import { filterSql, HEAD, textColumn, type Scope } from './read-sql.js'
import { statsOfRow, statsSql, type StatsColumns } from './ranked-statement.js'
import type { NamedStatements } from './named-statements.js'

type ListRow = KeywordCandidate &
  Partial<StatsColumns> & {
    /** Postings read, the lowest impact among them, the list's floor (null: no list) and reference. */
    read: number
    lowest: number | null
    floor: number | null
    reference: number | null
    idf: number
    avgdl: number
    score: number | null
  }

/**
 * The `q.limit` best candidates of the one term `q.terms[0]` from its list, reading at most
 * `read` postings, with keywordStats() of `statsOf` read in the same statement when asked
 * (port.ts candidatesWithStats); null when the list cannot tell them.
 */
export async function listCandidates(
  db: Queryable,
  statements: NamedStatements,
  t: Tables,
  scope: Scope,
  q: KeywordQuery,
  read: number,
  statsOf?: readonly string[],
): Promise<{ rows: KeywordCandidate[]; stats?: KeywordStats } | null> {
  const params: unknown[] = [scope.param, q.terms[0], q.headingWeight, read, q.limit]
  const filters = filterSql(q, params)
  if (statsOf) params.push(statsOf)
  const asked = statsOf ? `, asked AS MATERIALIZED (${statsSql(t, '(SELECT id FROM ix)', params.length)})` : ''
  // The length in float8, as index-reads.ts scores (numeric arithmetic per row otherwise).
  // The posting index gives the list best first and the counts scores need; chunk rows are
  // read for the filters in score order (sorted before the join), until `limit` pass.
  const text = `WITH ix AS (SELECT ${scope.sql} AS id),
     tm AS (SELECT d.df, d.floor, d.reference FROM ${t.terms} d WHERE d.index_id = (SELECT id FROM ix) AND d.term = $2),
     stats AS (
       SELECT i.chunk_rows::float8 AS n,
         CASE WHEN i.chunk_rows > 0 THEN i.token_sum::float8 / i.chunk_rows ELSE 1 END AS avgdl
       FROM ${t.indexes} i, ix WHERE i.id = ix.id),
     w AS (SELECT s.avgdl, GREATEST(ln((s.n - tm.df + 0.5) / (tm.df + 0.5)), 1e-6) AS idf FROM stats s, tm),
     top AS (
       SELECT p.chunk_id AS id, p.impact, w.idf * (f.f * 2.2) / (f.f + 1.2 * (0.25 + 0.75 * p.tokens::float8 / w.avgdl)) AS score
       FROM ${t.postings} p CROSS JOIN w
       CROSS JOIN LATERAL (SELECT p.body::float8 + $3::float8 * p.heading::float8 AS f OFFSET 0) f
       WHERE p.index_id = (SELECT id FROM ix) AND p.term = $2
       ORDER BY p.impact DESC, p.chunk_id DESC LIMIT $4),
     best AS (
       SELECT s.id, s.score FROM (SELECT top.id, top.score FROM top ORDER BY top.score DESC, top.id) s
       JOIN ${t.chunks} c ON c.id = s.id
       WHERE true${filters} ORDER BY s.score DESC, s.id LIMIT $5)${asked}
     SELECT m.read, m.lowest, tm.floor, tm.reference, w.idf, w.avgdl${asked ? ', a."statRows", a."statDfs"' : ''}, r.*
     FROM (SELECT COUNT(*)::int AS read, MIN(impact) AS lowest FROM top) m CROSS JOIN w CROSS JOIN tm${asked ? ' CROSS JOIN asked a' : ''}
     LEFT JOIN LATERAL (
       SELECT ${HEAD}, c.body_terms AS "bodyTerms", c.heading_terms AS "headingTerms"${textColumn(q)}, best.score
       FROM best JOIN ${t.chunks} c ON c.id = best.id) r ON true
     ORDER BY r.score DESC, r.id`
  const { rows } = await statements.query<ListRow>(db, text, params)
  const meta = rows[0]
  if (!meta || meta.floor === null) return null
  const found = rows.filter((r) => r.score !== null)
  const last = found[q.limit - 1]
  if (!last) return null
  // Not read: postings below the lowest read, or, once the list is read to its end, below its floor.
  const unread = meta.read < read ? meta.floor : (meta.lowest ?? meta.floor)
  const reference = meta.reference ?? IMPACT_REFERENCE_TOKENS
  if ((last.score as number) <= meta.idf * impactBound(unread, meta.avgdl, q.headingWeight, reference)) return null
  const candidates = found.map(
    ({
      read: _r,
      lowest: _l,
      floor: _f,
      reference: _t,
      idf: _i,
      avgdl: _a,
      score: _s,
      statRows: _n,
      statDfs: _d,
      ...head
    }) => head,
  )
  return { rows: candidates, ...(statsOf && { stats: statsOfRow(meta, statsOf) }) }
}
