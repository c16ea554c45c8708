/**
 * Reads of one index: files, chunks waiting for vectors, keyword candidates with the term
 * statistics BM25 needs, nearest neighbours, chunk texts. Every query names its index
 * through `$1` (Scope): a space's live index is looked up in the same statement, so a read
 * on any replica sees the index a rebuild switched to as soon as the switch commits, and
 * never a mix of two.
 *
 * Keyword candidates are ranked in SQL with the formula FTS5's bm25() uses
 * (ranked-statement.ts), so both engines hand search/ the same candidates.
 */
import type { ChunkFilters, ChunkHead, FileRecord, LocatedText, PendingChunk } from '../../domain/chunks.js'
import type {
  CandidatesWithStats,
  EntryLocation,
  EntryQuery,
  KeywordCandidate,
  KeywordQuery,
  KeywordStats,
  Neighbour,
  SourceCounts,
} from '../port.js'
import { toFileRecord, type FileRow } from '../file-row.js'
import type { Queryable, Tables } from './database.js'
import { vectorLiteral } from './index-writes.js'
import { listRead } from '../impact.js'
import type { ImpactListOptions } from './impact-lists.js'
import { listCandidates } from './list-candidates.js'
import { newestMatches } from './newest-matches.js'
import type { NamedStatements } from './named-statements.js'
import { filterSql, HEAD, type Scope } from './read-sql.js'
import { rankedStatement, statsOfRow, statsSql, type StatsColumns } from './ranked-statement.js'

/**
 * `lists`: the impact lists the index keeps (impact-lists.ts); a one-term query of a term in
 * enough chunks to have one reads its list before it scans every chunk holding the term
 * (list-candidates.ts; none: never).
 */
export function createIndexReads(db: Queryable, t: Tables, statements: NamedStatements, lists?: ImpactListOptions) {
  /**
   * Postings to read from the list of a one-term query's term, or 0 when it has none to read:
   * by its document frequency as the plan saw it (KeywordQuery.docFreqs), a term below the
   * lists' threshold has none, and asking cost a statement in 4 of 10 of the benchmark's
   * searches.
   */
  const listToRead = (q: KeywordQuery): number =>
    lists && q.terms.length === 1 && (q.docFreqs?.[0] ?? Infinity) >= lists.minDocFreq
      ? listRead(q.limit, lists.keep)
      : 0

  const one = async <R extends object>(sql: string, params: unknown[]): Promise<R | undefined> =>
    (await db.query<R>(sql, params)).rows[0]

  /**
   * Document frequencies and chunk rows in one statement (port.ts keywordStats). The terms are read
   * through a subquery, so the planner cannot size a plan to each query's term count and
   * keeps one generic plan per connection instead of planning every search (0.24 ms,
   * more than the 0.15 ms the statement runs).
   */
  async function keywordStats(scope: Scope, terms: readonly string[]): Promise<KeywordStats> {
    const { rows } = await statements.query<StatsColumns>(db, statsSql(t, scope.sql, 2), [scope.param, terms])
    return statsOfRow(rows[0], terms)
  }

  /**
   * The best `limit` chunks by BM25 over the query terms (FTS5's formula), best first: a
   * one-term query from its impact list when the list can tell them, else by the ranking
   * statement (ranked-statement.ts).
   */
  async function candidates(scope: Scope, q: KeywordQuery): Promise<KeywordCandidate[]> {
    if (q.terms.length === 0) return []
    const read = listToRead(q)
    if (read > 0) {
      const listed = await listCandidates(db, statements, t, scope, q, read)
      if (listed) return listed.rows
    }
    const { text, params } = rankedStatement(t, scope, q)
    // Named: the server keeps its plan per connection (planning cost about as much as a small read).
    return (await statements.query<KeywordCandidate>(db, text, params)).rows
  }

  return {
    listFiles: async (scope: Scope): Promise<FileRecord[]> =>
      (
        await db.query<FileRow>(`SELECT * FROM ${t.files} WHERE index_id = ${scope.sql} ORDER BY path`, [scope.param])
      ).rows.map(toFileRecord),
    findEntries: async (scope: Scope, q: EntryQuery): Promise<EntryLocation[]> =>
      ('hashes' in q
        ? await db.query<EntryLocation>(
            `SELECT path, MIN(start_line) AS "startLine", MAX(end_line) AS "endLine", entry_hash AS hash
               FROM ${t.chunks}
               WHERE index_id = ${scope.sql} AND entry_hash = ANY($2::text[])
                 AND entry_status IS DISTINCT FROM 'superseded'
               GROUP BY path, entry_hash ORDER BY path`,
            [scope.param, [...q.hashes]],
          )
        : await db.query<EntryLocation>(
            `SELECT path, MIN(start_line) AS "startLine", MAX(end_line) AS "endLine", NULL AS hash
               FROM ${t.chunks}
               WHERE index_id = ${scope.sql} AND entry_key = $2 AND entry_status = 'active'
               GROUP BY path ORDER BY path`,
            [scope.param, q.key],
          )
      ).rows,
    getFile: async (scope: Scope, path: string): Promise<FileRecord | undefined> => {
      const row = await one<FileRow>(`SELECT * FROM ${t.files} WHERE index_id = ${scope.sql} AND path = $2`, [
        scope.param,
        path,
      ])
      return row && toFileRecord(row)
    },
    counts: async (scope: Scope): Promise<SourceCounts[]> =>
      (
        await db.query<SourceCounts>(
          `SELECT source, COUNT(*)::int AS files, SUM(chunk_count)::int AS chunks FROM ${t.files}
           WHERE index_id = ${scope.sql} GROUP BY source ORDER BY source`,
          [scope.param],
        )
      ).rows,
    getMeta: async (scope: Scope, key: string): Promise<string | undefined> =>
      (
        await one<{ value: string }>(`SELECT value FROM ${t.meta} WHERE index_id = ${scope.sql} AND key = $2`, [
          scope.param,
          key,
        ])
      )?.value,
    pendingVectors: async (scope: Scope, limit: number): Promise<PendingChunk[]> =>
      (
        await db.query<PendingChunk>(
          `SELECT id, path, source, text, headings, content_hash AS "contentHash" FROM ${t.chunks} c
           WHERE index_id = ${scope.sql} AND NOT has_vector ORDER BY id LIMIT $2`,
          [scope.param, limit],
        )
      ).rows,
    pendingVectorCount: async (scope: Scope): Promise<number> =>
      (
        await one<{ n: number }>(
          `SELECT COUNT(*) AS n FROM ${t.chunks} WHERE index_id = ${scope.sql} AND NOT has_vector`,
          [scope.param],
        )
      )?.n ?? 0,
    keywordStats,
    candidates,
    /**
     * candidates() with keywordStats() of `statsOf` read in the same statement (port.ts):
     * one round trip instead of two, whether the impact list or the ranking statement answers.
     */
    candidatesWithStats: async (
      scope: Scope,
      q: KeywordQuery,
      statsOf: readonly string[],
    ): Promise<CandidatesWithStats> => {
      const read = listToRead(q)
      if (read > 0) {
        const listed = await listCandidates(db, statements, t, scope, q, read, statsOf)
        if (listed?.stats) return { rows: listed.rows, stats: listed.stats }
      }
      const { text, params } = rankedStatement(t, scope, q, statsOf)
      const { rows } = await statements.query<KeywordCandidate & StatsColumns & { score: number | null }>(
        db,
        text,
        params,
      )
      // Without candidates, the one row left by the outer join carries only the statistics.
      const found = rows.filter((r) => r.id !== null)
      return {
        rows: found.map(({ statRows: _n, statDfs: _d, score: _s, ...row }) => row),
        stats: statsOfRow(rows[0], statsOf),
      }
    },
    /** Up to `limit` of the most recently written chunks holding any term, unranked. */
    newestMatches: (scope: Scope, q: KeywordQuery) => newestMatches(db, statements, t, scope, q),
    chunkTexts: async (ids: readonly number[]): Promise<Map<number, LocatedText>> => {
      if (ids.length === 0) return new Map()
      const { rows } = await db.query<{ id: number } & LocatedText>(
        `SELECT id, text, body_terms AS "bodyTerms", path, start_line AS "startLine", end_line AS "endLine"
         FROM ${t.chunks} WHERE id = ANY($1::bigint[])`,
        [ids],
      )
      return new Map(rows.map(({ id, ...text }) => [Number(id), text]))
    },
    /** The `k` chunks nearest to `vector` in the `dims`-sized vector table, nearest first. */
    nearest: async (
      scope: Scope,
      dims: number,
      vector: Float32Array,
      k: number,
      filters: ChunkFilters,
    ): Promise<Neighbour[]> => {
      const params: unknown[] = [scope.param, vectorLiteral(vector), k]
      const where = filterSql(filters, params, t.chunks)
      const { rows } = await db.query<ChunkHead & { distance: number }>(
        `SELECT ${HEAD}, n.distance FROM (
           SELECT v.chunk_id, v.embedding <=> $2::vector AS distance FROM ${t.vectors(dims)} v
           WHERE v.index_id = ${scope.sql}${where}
           ORDER BY v.embedding <=> $2::vector LIMIT $3) n
         JOIN ${t.chunks} c ON c.id = n.chunk_id ORDER BY n.distance, c.id`,
        params,
      )
      return rows
    },
  }
}

export type IndexReads = ReturnType<typeof createIndexReads>
