/**
 * Keyword candidates of a one-term query from the term's impact list (impact-lists.ts): the
 * list's best postings and every chunk written since the list (newest first from FTS5, ids
 * above its `upto`) are ranked as FTS5 ranks them (fts5-bm25.ts: the same bm25() to the last
 * bit), the best `limit` that pass the filters are kept, and they are the answer when the
 * last of them scores above what any posting not read can (store/impact.ts impactBound).
 * Otherwise (no list, too many chunks since it, filters that pass too few, a bound not
 * beaten) the caller lets FTS5 rank every chunk holding the term, as before.
 *
 * The answer is the one FTS5 gives: the best `limit` rows passing the filters by rank, equal
 * ranks by id (search-repo.ts: FTS5 hands rows over by id, and SQLite's LIMIT keeps the
 * first of equal ones; the outer query orders by rank and id).
 */
import type { KeywordQuery } from '../port.js'
import { countTerm } from '../../text/term-count.js'
import { impactBound, listRead } from '../impact.js'
import type { Db } from './database.js'
import { ENTRY_SELECT } from './entry-columns.js'
import { AVERAGES_SQL, fts5AvgTokens, fts5Rank, parseAverages } from './fts5-bm25.js'
import type { Posting } from './top-impacts.js'
import { FILTERS, withEntry, type KeywordRow, type Params, type Stored } from './keyword-sql.js'

/**
 * Chunks written since a list that a search reads from FTS5 before it gives up on the list:
 * each costs reading its row (a few µs), and the list is extended after the next sync.
 */
const MAX_NEWER = 2000

type Row = Stored<Omit<KeywordRow, 'rank'>> & { pass: 0 | 1 }

export function createListCandidates(db: Db, keep: number) {
  const stmt = {
    term: db.prepare<[string], { reference: number; floor: number; upto: number }>(
      'SELECT reference, floor, upto FROM impact_terms WHERE term = ?',
    ),
    listed: db.prepare<[string, number], Posting>(
      'SELECT chunk_id AS id, impact FROM impact_postings WHERE term = ? ORDER BY impact DESC, chunk_id LIMIT ?',
    ),
    // Newest first: FTS5 reads from the end of the term's rows and stops at the list's upto;
    // a `rowid > ?` bound instead reads them all (measured).
    newest: db
      .prepare<[string], number>('SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rowid DESC')
      .pluck(),
    rows: db.prepare<[Params & { ids: string }], Row>(
      `SELECT c.id, c.path, c.source, c.start_line AS startLine, c.end_line AS endLine,
         c.token_count AS tokenCount, c.dated_ms AS datedMs, ${ENTRY_SELECT}, c.body_terms AS bodyTerms,
         c.heading_terms AS headingTerms, (${FILTERS}) AS pass
       FROM chunks c WHERE c.id IN (SELECT value FROM json_each(@ids))`,
    ),
    averages: db.prepare<[], { block: Uint8Array }>(AVERAGES_SQL),
    // SQLite's ln() is the C library's log(), which FTS5's IDF uses (fts5-bm25.ts).
    ln: db.prepare<[number], number | null>('SELECT ln(?)').pluck(),
  }

  /** FTS5's IDF of a term in `docFreq` of `rows` rows (fts5_aux.c, clamped above 0). */
  function idfOf(rows: number, docFreq: number): number {
    const idf = stmt.ln.get((rows - docFreq + 0.5) / (docFreq + 0.5)) ?? 0
    return idf <= 0 ? 1e-6 : idf
  }

  /**
   * The best `q.limit` candidates of the one term `q.terms[0]`, or null when its list cannot
   * tell them. Call inside a read transaction, with the term's document frequency in it.
   */
  return function listCandidates(q: KeywordQuery, params: Params, docFreq: number): KeywordRow[] | null {
    const term = q.terms[0] as string
    const list = stmt.term.get(term)
    if (!list) return null
    const read = listRead(q.limit, keep)
    const listed = stmt.listed.all(term, read)
    const ids = listed.map((p) => p.id)
    let newer = 0
    for (const id of stmt.newest.iterate(params.match)) {
      if (id <= list.upto) break
      if (++newer > MAX_NEWER) return null
      ids.push(id)
    }
    const block = stmt.averages.get()?.block
    if (!block) return null
    const averages = parseAverages(block)
    const avg = fts5AvgTokens(averages)
    const idf = idfOf(averages.rows, docFreq)
    const ranked: KeywordRow[] = []
    for (const row of stmt.rows.all({ ...params, ids: JSON.stringify(ids) })) {
      if (row.pass !== 1) continue
      const { pass: _pass, bodyTerms, headingTerms, ...head } = row
      const rank = fts5Rank(
        idf,
        countTerm(bodyTerms, term),
        countTerm(headingTerms, term),
        q.headingWeight,
        row.tokenCount,
        avg,
      )
      ranked.push(withEntry({ ...head, rank, bodyTerms, headingTerms }))
    }
    if (ranked.length < q.limit) return null
    ranked.sort((a, b) => a.rank - b.rank || a.id - b.id)
    const last = ranked[q.limit - 1] as KeywordRow
    // Not read: postings below the lowest read, or, once the list is read to its end, below its floor.
    const lowest = listed.length < read ? list.floor : Math.max(list.floor, (listed.at(-1) as Posting).impact)
    if (-last.rank <= idf * impactBound(lowest, avg, q.headingWeight, list.reference)) return null
    return ranked.slice(0, q.limit)
  }
}

export type ListCandidates = ReturnType<typeof createListCandidates>
