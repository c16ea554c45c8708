/**
 * Read queries for search on one connection: ranked FTS5 matches joined with their chunk
 * rows, term statistics from the FTS5 vocabulary, and chunk texts for snippets.
 *
 * Every ranked query has the same shape: an inner query that lets FTS5 rank and cut to
 * `limit` (joining chunks only when a filter needs a column), and an outer join that reads
 * the columns of those few rows. Reading chunk rows for the thousands of matches that miss
 * the limit, or term strings that will not be re-scored, is what makes a search slow.
 *
 * While a big file is being staged (staged-changes.ts), some chunks are not visible yet or
 * any more; only then do the queries check each row's visibility (schema.ts), so a search
 * sees every file whole, its old chunks or its new ones, at no cost the rest of the time.
 */
import type { ChunkHead, LocatedText } from '../../domain/chunks.js'
import { AVERAGES_SQL, parseAverages } from './fts5-bm25.js'
import { ftsMatch } from './fts-match.js'
import type { KeywordQuery } from '../port.js'
import type { Db } from './database.js'
import { ENTRY_SELECT, SUPERSEDED } from './entry-columns.js'
import { CHUNKS_VERSION_KEY } from './schema.js'
import type { ListCandidates } from './list-candidates.js'
import type { RareCandidates } from './rare-candidates.js'
import { FILTERS, toParams, VISIBLE, withEntry, type KeywordRow, type Params, type Stored } from './keyword-sql.js'

const BM25 = 'bm25(chunks_fts, 1.0, @headingWeight)'
/*
 * Every LIMIT here is `+@param`, not `@param`: SQLite plans a LIMIT of a bare parameter with
 * the value bound and compiles the statement again whenever that parameter is bound anew,
 * and better-sqlite3 clears the bindings after each run, so every search compiled its query
 * again (about 0.08 ms of a long query's 0.8 ms FTS5 query). The unary plus makes the limit
 * an expression read at run time.
 */
/**
 * Without a filter on other columns, FTS5 ranks alone; it is asked for @fetch rows (more
 * than @limit while superseded rows may be among them), which `outer` cuts to @limit.
 */
const RANKED_ALL = `SELECT rowid AS id, ${BM25} AS rank
  FROM chunks_fts WHERE chunks_fts MATCH @match ORDER BY rank LIMIT +@fetch`
const RANKED_FILTERED = `SELECT c.id AS id, ${BM25} AS rank
  FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
  WHERE chunks_fts MATCH @match AND ${FILTERS} ORDER BY rank LIMIT +@limit`
const RANKED_VISIBLE = `SELECT c.id AS id, ${BM25} AS rank
  FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
  WHERE chunks_fts MATCH @match AND ${FILTERS} AND ${VISIBLE} ORDER BY rank LIMIT +@limit`
/**
 * Unranked matches, newest rows first: cheap even for terms found in every chunk. Row ids
 * grow as files are indexed, so these are the most recently written chunks.
 */
const unranked = (visibleOnly: boolean) => `SELECT c.id AS id, 0 AS rank
  FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
  WHERE chunks_fts MATCH @match AND ${FILTERS}${visibleOnly ? ` AND ${VISIBLE}` : ''}
  ORDER BY chunks_fts.rowid DESC LIMIT +@limit`

const outer = (inner: string): string =>
  `SELECT c.id, c.path, c.source, c.start_line AS startLine, c.end_line AS endLine,
      c.token_count AS tokenCount, c.dated_ms AS datedMs, ${ENTRY_SELECT}, f.rank, c.body_terms AS bodyTerms,
      c.heading_terms AS headingTerms
    FROM (${inner}) f JOIN chunks c ON c.id = f.id ORDER BY f.rank, c.id`

/**
 * `outer` keeping the current rows (entry-columns.ts), in rank order up to @limit: a row
 * dropped costs reading its status only (stored before its texts: schema.ts), and no row
 * past the @limit-th kept is read.
 */
const outerCurrent = (inner: string): string =>
  `SELECT c.id, c.path, c.source, c.start_line AS startLine, c.end_line AS endLine,
      c.token_count AS tokenCount, c.dated_ms AS datedMs, ${ENTRY_SELECT}, f.rank, c.body_terms AS bodyTerms,
      c.heading_terms AS headingTerms
    FROM (${inner}) f JOIN chunks c ON c.id = f.id WHERE c.entry_status IS NULL OR NOT ${SUPERSEDED}
    ORDER BY f.rank, c.id LIMIT +@limit`

/**
 * `read` once per `generation`: what only a write can change, asked by every search.
 * Each statement outside a transaction is a read transaction of its own, which takes and
 * drops SQLite's lock on the write-ahead log (two system calls, costly in a virtual machine).
 */
function perGeneration<T>(generation: () => number, read: () => T): () => T {
  let seen = -1
  let value = undefined as T
  return () => {
    const now = generation()
    if (now !== seen) {
      value = read()
      seen = now
    }
    return value
  }
}

/**
 * `fromList`: one-term queries are answered from the term's impact list when it can tell;
 * `fromRare`: queries whose terms all have rare lists, from them.
 */
type ListReads = { fromList: ListCandidates; fromRare: RareCandidates }

/** `generation` changes whenever the index may have (index-store.ts). */
export function createSearchRepo(db: Db, lists: ListReads, generation: () => number) {
  const { fromList, fromRare } = lists
  const ranked = {
    all: db.prepare<[Params], Stored<KeywordRow>>(outer(RANKED_ALL)),
    current: db.prepare<[Params], Stored<KeywordRow>>(outerCurrent(RANKED_ALL)),
    filtered: db.prepare<[Params], Stored<KeywordRow>>(outer(RANKED_FILTERED)),
    visible: db.prepare<[Params], Stored<KeywordRow>>(outer(RANKED_VISIBLE)),
  }
  const newest = {
    all: db.prepare<[Params], Stored<KeywordRow>>(outer(unranked(false))),
    visible: db.prepare<[Params], Stored<KeywordRow>>(outer(unranked(true))),
  }
  const byIds = (columns: string, visibleOnly: boolean) =>
    `SELECT ${columns} FROM chunks c WHERE c.id IN (SELECT value FROM json_each(?))${visibleOnly ? ` AND ${VISIBLE}` : ''}`
  const HEAD_COLUMNS = `c.id, c.path, c.source, c.start_line AS startLine, c.end_line AS endLine,
    c.token_count AS tokenCount, c.dated_ms AS datedMs, ${ENTRY_SELECT}`
  const chunkHeads = {
    all: db.prepare<[string], Stored<ChunkHead>>(byIds(HEAD_COLUMNS, false)),
    visible: db.prepare<[string], Stored<ChunkHead>>(byIds(HEAD_COLUMNS, true)),
  }
  const chunkTexts = db.prepare<[string], { id: number } & LocatedText>(
    byIds('c.id, c.text, c.body_terms AS bodyTerms, c.path, c.start_line AS startLine, c.end_line AS endLine', false),
  )
  const staging = db.prepare<[], { one: number }>('SELECT 1 AS one FROM staging LIMIT 1')
  /** Whether some chunk may be invisible now: a staged change is under way. */
  const partial = perGeneration(generation, () => staging.get() !== undefined)
  // A common term's count as the writer keeps it (term-docs.ts), else as FTS5 counts it.
  const docFreqOf = db.prepare<[{ term: string }], { doc: number | null }>(
    'SELECT COALESCE((SELECT doc FROM term_docs WHERE term = @term), (SELECT doc FROM chunks_vocab WHERE term = @term)) AS doc',
  )
  const docFreq = (term: string): number => docFreqOf.get({ term })?.doc ?? 0
  const superseded = db.prepare<[], { one: number }>(
    "SELECT 1 AS one FROM chunks WHERE entry_status = 'superseded' LIMIT 1",
  )
  /** Whether a chunk is superseded (the partial index chunks_superseded answers at once). */
  const anySuperseded = perGeneration(generation, () => superseded.get() !== undefined)
  // FTS5 keeps its row count in its averages record, one row to read (0.05 ms); COUNT(*) read
  // the whole table (15 ms at a million chunks with its pages cached, 84 ms without), in the
  // first search after every commit on each search thread. The counts are the same: a
  // chunk's FTS5 row is inserted and deleted with it (chunk-rows.ts).
  const averages = db.prepare<[], { block: Uint8Array }>(AVERAGES_SQL)
  const listedIn = (read: () => KeywordRow[] | null) => db.transaction(read)()
  const chunksVersion = db.prepare<[], string>(`SELECT value FROM meta WHERE key = '${CHUNKS_VERSION_KEY}'`).pluck()

  return {
    /**
     * The best `limit` matches by FTS5's BM25, best first. `docFreqOf` gives a term's
     * document frequency in the current generation (the caller caches them).
     */
    candidates: (q: KeywordQuery, docFreqOf: (term: string) => number): KeywordRow[] => {
      const match = ftsMatch(q.terms)
      if (match === null) return []
      const params = toParams(q, match)
      const term = q.terms.length === 1 ? (q.terms[0] as string) : null
      // One snapshot for the list, the chunks since and the statistics, as one FTS5 query has.
      const listed = term === null ? null : listedIn(() => (partial() ? null : fromList(q, params, docFreqOf(term))))
      if (listed) return listed
      const filtered =
        params.pathPrefix !== null ||
        params.source !== null ||
        params.excludeMemoryFile === 1 ||
        params.dated === 1 ||
        params.origins !== null
      const route = partial() ? 'visible' : filtered ? 'filtered' : 'all'
      // Rare lists cannot tell which chunks a staged change hides.
      const rare = route === 'visible' ? null : listedIn(() => fromRare(q, params, docFreqOf))
      if (rare) return rare
      if (route !== 'all' || q.includeSuperseded || !anySuperseded()) return ranked[route].all(params).map(withEntry)
      // FTS5 ranks every match anyway: asked for twice the rows, enough while fewer than half
      // of the best are superseded. Fewer kept than wanted, and the query's terms in more
      // chunks than were asked for: asked again, for every match.
      const fetch = 2 * q.limit + 8
      let rows = ranked.current.all({ ...params, fetch })
      if (rows.length < q.limit && q.terms.reduce((n, t) => n + docFreq(t), 0) > fetch) {
        rows = ranked.current.all({ ...params, fetch: -1 })
      }
      return rows.map(withEntry)
    },
    /** Up to `limit` of the newest matches, unranked (rank 0). */
    newestMatches: (q: KeywordQuery): KeywordRow[] => {
      const match = ftsMatch(q.terms)
      if (match === null) return []
      return newest[partial() ? 'visible' : 'all'].all(toParams(q, match)).map(withEntry)
    },
    /** Heads of visible chunks by id (order not kept). */
    chunkHeads: (ids: readonly number[]): ChunkHead[] =>
      ids.length === 0 ? [] : chunkHeads[partial() ? 'visible' : 'all'].all(JSON.stringify(ids)).map(withEntry),
    /**
     * Raw chunk texts and their body terms by id, visible or not: a search asks for the texts
     * of the candidates it ranked, and a file published meanwhile leaves its old rows in place
     * until they are deleted, so the answer stays the version the search ranked.
     */
    chunkTexts: (ids: readonly number[]): Map<number, LocatedText> =>
      new Map(ids.length === 0 ? [] : chunkTexts.all(JSON.stringify(ids)).map(({ id, ...text }) => [id, text])),
    /**
     * Whether a staged change is under way: some chunks are not visible yet or any more,
     * and term statistics still count them.
     */
    partial,
    /** Chunks containing `term` (0 when unknown). */
    docFreq,
    /** Grows with every write of chunk rows (schema.ts CHUNKS_VERSION_KEY). */
    chunksVersion: (): number => Number(chunksVersion.get() ?? 0),
    /** Chunk count: BM25's N. */
    corpus: () => {
      const block = averages.get()?.block
      return { rows: block ? parseAverages(block).rows : 0 }
    },
  }
}

export type SearchRepo = ReturnType<typeof createSearchRepo>
