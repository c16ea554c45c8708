/**
 * Keyword candidates from the rare lists (rare-lists.ts), when every term FTS5 would rank
 * has one: each list's postings and the chunks written since it (newest first from FTS5, ids
 * above its `upto`, counted from their terms) are ranked as FTS5 ranks them (rare-rank.ts:
 * the same bm25() to the last bit, with the document counts and averages FTS5 reads in the
 * same snapshot), then the rows are read in rank order, those that pass the filters kept,
 * until `limit` are. A listed chunk deleted since is not found and so not kept. The answer is
 * FTS5's: the best `limit` rows passing the filters by rank, equal ranks by id
 * (search-repo.ts). Null when a term has no list, or too many chunks were written since:
 * the caller asks FTS5.
 *
 * FTS5 scores about 1 µs a matching row: for a SciFact claim's selective terms, its ranked
 * query with the rows took 0.7–1.1 ms, this 0.2 (BENCHMARKS.md, issue 35 "rare lists").
 */
import type { KeywordQuery } from '../port.js'
import { countTerm } from '../../text/term-count.js'
import type { Db } from './database.js'
import { ENTRY_SELECT } from './entry-columns.js'
import { AVERAGES_SQL, fts5AvgTokens, parseAverages } from './fts5-bm25.js'
import { FILTERS, withEntry, type KeywordRow, type Params, type Stored } from './keyword-sql.js'
import { asIndexed, countedAsIndexed, LIST_UPTO } from './rare-lists.js'
import { createRareRanker, restInOrder, type Ranked, type Taken } from './rare-rank.js'

/**
 * Chunks written since a list that a search reads before it gives up on the lists: each
 * costs reading and counting its row (a few µs), and the lists are extended after the next
 * sync (as list-candidates.ts MAX_NEWER).
 */
const MAX_NEWER = 2000

type Row = Stored<Omit<KeywordRow, 'rank'>>
type Newer = { id: number; tokens: number; body: string; heading: string; sz: Uint8Array }

/** The reads of a search from the lists, prepared once a connection. */
function prepare(db: Db) {
  return {
    lists: db.prepare<[string], { term: string; upto: number; blob: Uint8Array }>(
      `SELECT term, ${LIST_UPTO} AS upto, blob FROM rare_postings WHERE term IN (SELECT value FROM json_each(?))`,
    ),
    newestId: db.prepare<[], number | null>('SELECT MAX(id) FROM chunks').pluck(),
    newest: db
      .prepare<[string], number>('SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rowid DESC')
      .pluck(),
    newer: db.prepare<[string], Newer>(
      `SELECT c.id, c.token_count AS tokens, c.body_terms AS body, c.heading_terms AS heading, d.sz
       FROM chunks c JOIN chunks_fts_docsize d ON d.id = c.id WHERE c.id IN (SELECT value FROM json_each(?))`,
    ),
    // The chunks of @ids that pass the filters, in the order of @ids.
    rows: db.prepare<[Params & { ids: string }], Row>(
      `SELECT c.id, c.path, c.source, c.start_line AS startLine, c.end_line AS endLine,
       c.token_count AS tokenCount, c.dated_ms AS datedMs, ${ENTRY_SELECT}, c.body_terms AS bodyTerms,
       c.heading_terms AS headingTerms
     FROM json_each(@ids) j CROSS JOIN chunks c ON c.id = j.value WHERE ${FILTERS} ORDER BY j.key`,
    ),
    averages: db.prepare<[], { block: Uint8Array }>(AVERAGES_SQL),
    // SQLite's ln() is the C library's log(), which FTS5's IDF uses (fts5-bm25.ts).
    ln: db.prepare<[number], number | null>('SELECT ln(?)').pluck(),
  }
}

export function createRareCandidates(db: Db) {
  const stmt = prepare(db)
  const ranker = createRareRanker()
  /** ln() by argument: a claim's terms ask the same few again and again. Cleared past a size. */
  const logs = new Map<number, number>()

  /** FTS5's IDF of a term in `docFreq` of `rows` rows (fts5_aux.c, clamped above 0). */
  function idfOf(rows: number, docFreq: number): number {
    const x = (rows - docFreq + 0.5) / (docFreq + 0.5)
    let ln = logs.get(x)
    if (ln === undefined) {
      if (logs.size >= 4096) logs.clear()
      ln = stmt.ln.get(x) ?? 0
      logs.set(x, ln)
    }
    return ln <= 0 ? 1e-6 : ln
  }

  /** The rows of the chunks ranked (in rank order) that pass the filters, up to `limit`. */
  function keep(taken: Taken, params: Params, limit: number): KeywordRow[] {
    const kept: KeywordRow[] = []
    let rest: Ranked[] | null = null
    for (let batch = taken.best, next = 0; batch.length > 0;) {
      let at = 0
      for (const row of stmt.rows.all({ ...params, ids: JSON.stringify(batch.map((r) => r.id)) })) {
        // Rows come in the batch's order, those that do not pass (or no longer exist) left out.
        while ((batch[at] as Ranked).id !== row.id) at++
        kept.push(withEntry({ ...row, rank: (batch[at] as Ranked).rank }))
        if (kept.length === limit) return kept
      }
      // Fewer passed than wanted (deleted since, superseded, filtered out): the rest, in order,
      // `limit` at a time, so a few missing rows do not read every candidate with its terms.
      rest ??= restInOrder(taken)
      batch = rest.slice(next, next + limit)
      next += limit
    }
    return kept
  }

  /**
   * The best `q.limit` candidates of `q.terms` that pass `params`' filters, or null when the
   * lists cannot tell them. Call inside a read transaction; `docFreqOf` gives a term's
   * document count in it.
   */
  return function rareCandidates(
    q: KeywordQuery,
    params: Params,
    docFreqOf: (term: string) => number,
  ): KeywordRow[] | null {
    const byTerm = new Map(stmt.lists.all(JSON.stringify(q.terms)).map((l) => [l.term, l]))
    const lists = q.terms.map((term) => byTerm.get(term))
    if (lists.some((l) => l === undefined)) return null
    const upto = lists.reduce((least, l) => Math.min(least, l?.upto ?? 0), Infinity)
    const ids: number[] = []
    // FTS5 reads a doclist backwards only whole: asked only when some chunk is newer than a list.
    if ((stmt.newestId.get() ?? 0) > upto) {
      for (const id of stmt.newest.iterate(params.match)) {
        if (id <= upto) break
        if (ids.length === MAX_NEWER) return null
        ids.push(id)
      }
    }
    const newer = ids.length === 0 ? [] : stmt.newer.all(JSON.stringify(ids))
    // A chunk whose terms FTS5 indexed otherwise cannot be counted from them (rare-lists.ts).
    if (!newer.every(countedAsIndexed)) return null
    const block = stmt.averages.get()?.block
    if (!block) return null
    const averages = parseAverages(block)
    const avgTokens = fts5AvgTokens(averages)
    const weight = q.headingWeight
    // Every read before the first sum: the ranker's sums are the connection's, and a read
    // that threw half-way would leave them to the next search.
    const idfs = q.terms.map((term) => idfOf(averages.rows, docFreqOf(term)))
    // Each newer chunk's counts, term by term, read before the first sum too.
    const counts = newer.map((chunk) => {
      const [body, heading] = [asIndexed(chunk.body), asIndexed(chunk.heading)]
      return q.terms.map((term) => [countTerm(body, term), countTerm(heading, term)])
    })
    // FTS5 matched each of them: one that counts none of the terms was indexed otherwise.
    if (counts.some((c) => c.every(([body = 0, heading = 0]) => body + heading === 0))) return null
    q.terms.forEach((_, i) => {
      const list = lists[i] as { upto: number; blob: Uint8Array }
      const idf = idfs[i] as number
      ranker.addList(list.blob, idf, weight, avgTokens)
      newer.forEach((chunk, c) => {
        const [body = 0, heading = 0] = counts[c]?.[i] ?? []
        if (chunk.id > list.upto && body + heading > 0)
          ranker.add(chunk.id, idf, body, heading, weight, chunk.tokens, avgTokens)
      })
    })
    // The rows wanted first: rows are read with their terms, the costliest part after FTS5's.
    return keep(ranker.take(q.limit), params, q.limit)
  }
}

export type RareCandidates = ReturnType<typeof createRareCandidates>
