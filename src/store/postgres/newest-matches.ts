/**
 * The most recently written chunks holding any of a query's terms (port.ts newestMatches),
 * which keyword searches take when every term is noise or to fill up on common terms. The
 * newest rows of the index are read first, by id from the primary key, stopping at
 * `limit` matches: a noise term is in every other chunk, so a few dozen rows answer. Only
 * when the newest NEWEST_WINDOW rows hold fewer than `limit` matches are the matches
 * found through the GIN index (every chunk holding a term read, then sorted): on 20,001
 * chunks that read 19,850 rows for a query of two noise terms (314 ms) where the newest
 * rows took 0.7 ms.
 */
import type { KeywordCandidate, KeywordQuery } from '../port.js'
import type { Queryable, Tables } from './database.js'
import type { NamedStatements } from './named-statements.js'
import { filterSql, HEAD, textColumn, type Scope } from './read-sql.js'
import { termCheck, termHash, termKeySql } from './term-hash.js'

/**
 * Newest rows of an index read before the GIN index is asked instead: about the postings
 * a search may score (search/keyword-search.ts POSTING_BUDGET), so a term in 1 chunk of 40
 * still finds a default search's 24 within it.
 */
export const NEWEST_WINDOW = 1000

/**
 * Up to `q.limit` of the newest chunks holding any term and passing the filters, newest
 * first; `window`: newest rows read before the GIN index (tests make it small).
 */
export async function newestMatches(
  db: Queryable,
  statements: NamedStatements,
  t: Tables,
  scope: Scope,
  q: KeywordQuery,
  window = NEWEST_WINDOW,
): Promise<KeywordCandidate[]> {
  if (q.terms.length === 0) return []
  const params: unknown[] = [scope.param, q.terms.map(termHash), q.limit, q.terms.map(termCheck)]
  const filters = filterSql(q, params)
  const keys = `ARRAY(SELECT ${termKeySql('u.h', 'u.k', '(SELECT id FROM ix)')}
    FROM unnest($2::int4[], $4::int4[]) AS u(h, k))`
  // COALESCE keeps the window's term test off the GIN index; the window's rows come from
  // the primary key newest first, and the first `limit` that match end the read. The
  // second branch runs only when the window held too few (a one-time filter). The limit is
  // read through a subquery so one generic plan serves every search (ranked-statement.ts keysCte).
  const text = `WITH ix AS (SELECT ${scope.sql} AS id),
     recent AS MATERIALIZED (
       SELECT c.id FROM (
         SELECT * FROM ${t.chunks} WHERE index_id = (SELECT id FROM ix) ORDER BY id DESC LIMIT ${Math.trunc(window)}) c
       WHERE COALESCE(c.keys && ${keys}, false)${filters}
       ORDER BY c.id DESC LIMIT (SELECT $3::int)),
     picked AS (
       SELECT id FROM recent WHERE (SELECT COUNT(*) FROM recent) = $3
       UNION ALL
       (SELECT c.id FROM ${t.chunks} c
        WHERE (SELECT COUNT(*) FROM recent) < $3 AND c.index_id = (SELECT id FROM ix) AND c.keys && ${keys}${filters}
        ORDER BY c.id DESC LIMIT (SELECT $3::int)))
     SELECT ${HEAD}, c.body_terms AS "bodyTerms", c.heading_terms AS "headingTerms"${textColumn(q)}
     FROM picked JOIN ${t.chunks} c ON c.id = picked.id ORDER BY c.id DESC`
  return (await statements.query<KeywordCandidate>(db, text, params)).rows
}
