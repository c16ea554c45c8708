/**
 * Rare lists on SQLite: for each term in at most `maxDocFreq` chunks, every chunk holding it
 * with the term's counts and the chunk's length (rare-postings.ts), in rare_postings, so a
 * search ranks the terms FTS5 would rank without FTS5 (rare-candidates.ts). A list covers
 * the chunks with ids up to its `upto`; chunks written since have higher ids (schema.ts
 * ID_FLOOR_KEY) and a search reads them from FTS5; deleted chunks are not found when their
 * rows are read. So no write touches a list, and a list never changes an answer, however old
 * (as the impact lists, impact-lists.ts).
 *
 * A list covers the chunks up to the greater of its row's `upto` and the index's
 * RARE_UPTO_KEY, which an extension raises for every list at once.
 *
 * Lists are refreshed in the background after syncs (index-store.ts compact), in steps of
 * a few ms:
 *  - built for every rare term when the index has `minRows` chunks and none were built yet,
 *    or its size doubled or halved since (postings of deleted chunks are dropped then);
 *  - otherwise brought up to the newest chunk: the postings of the chunks written since join
 *    their terms' lists, a term new to the index gets one, and a list past twice
 *    `maxDocFreq` postings is dropped (its term is common now).
 * A built list is read from FTS5's instance vocabulary, term by term (about 5 µs a posting),
 * and each chunk's length from FTS5's row sizes; the chunks since are counted from their
 * analysed terms, which FTS5 indexed as they are but for the final sigma, folded to σ
 * (asIndexed), except where its tokenizer splits a character the analyzer keeps
 * (countedAsIndexed): such a chunk makes the next refresh a build.
 */
import type { StepOptions } from '../port.js'
import { columnCounts } from '../../text/term-count.js'
import type { Db } from './database.js'
import { AVERAGES_SQL, parseAverages, rowTokens } from './fts5-bm25.js'
import { encodePostings, forEachPosting, type RarePosting } from './rare-postings.js'
import { ID_FLOOR_KEY } from './schema.js'
import { pacer, SLICE_MS, type Write } from './upkeep-steps.js'

export type RareListOptions = {
  /** Document frequency up to which a term gets a list: a search's posting budget. */
  maxDocFreq: number
  /** Chunks from which an index has lists at all. */
  minRows: number
}

/**
 * A search hands FTS5 the rarest terms of its query up to 1,000 postings in all
 * (search/keyword-search.ts POSTING_BUDGET), so no term in more chunks is ranked there but
 * alone, and a list holds at most about 5 KB.
 */
export const RARE_MAX_DOC_FREQ = 1000
/**
 * Chunks from which an index keeps rare lists. Their build costs background work in
 * proportion to the index (about 0.6 s of CPU per 1,000 chunks of SciFact abstracts), and
 * what they save a search is bounded by the posting budget whatever the index's size; most
 * agents' indexes are small (a thousand agents of about a thousand chunks would each build
 * theirs), so the lists begin where FTS5's ranking of a long query nears a millisecond
 * (0.7–1.1 ms for a SciFact claim at 7,477 chunks).
 */
export const RARE_MIN_ROWS = 5000

/** meta key: the index's chunk count when its rare lists were last built from every term. */
export const RARE_BUILT_ROWS_KEY = 'rare_built_rows'
/** meta key: the chunk id up to which every rare list covers the chunks, whatever its row says. */
export const RARE_UPTO_KEY = 'rare_upto'
/** A list's coverage: its row's, or every list's if higher. */
export const LIST_UPTO = `MAX(upto, IFNULL((SELECT CAST(value AS INTEGER) FROM meta WHERE key = '${RARE_UPTO_KEY}'), 0))`

/** Chunks read at once in an extension (each then counted while the step's time lasts). */
const SCAN_STEP = 64

/**
 * Characters FTS5's tokenizer (schema.ts FTS_TOKENIZER) splits or joins otherwise than the
 * analyzer: U+0345 and the CJK radicals (U+2E80–2EFF). Found by comparing every code point
 * with the analyzer (issue 35 review); the only other difference is the final sigma, which
 * FTS5 folds to σ (asIndexed).
 */
const SPLIT_BY_FTS5 = /[\u0345\u2e80-\u2eff]/

/** Analysed terms as FTS5 indexed them: the final sigma folded to σ, as FTS5 folds it. */
export const asIndexed = (terms: string): string => (terms.includes('ς') ? terms.replaceAll('ς', 'σ') : terms)

/**
 * Whether a chunk's analysed terms, asIndexed, are the tokens FTS5 indexed: its length by
 * FTS5 (`sz`, the row's %_docsize record) is its term count, and no term holds a character
 * FTS5 splits otherwise.
 */
export function countedAsIndexed(chunk: { tokens: number; body: string; heading: string; sz: Uint8Array }): boolean {
  return rowTokens(chunk.sz) === chunk.tokens && !SPLIT_BY_FTS5.test(chunk.body) && !SPLIT_BY_FTS5.test(chunk.heading)
}

/** Vocabulary terms read at once, and the longest such read, in ms (FTS5 counts each term's rows as it reads it). */
const VOCAB_PAGE = 256
const VOCAB_SLICE_MS = 2

/** A chunk written since the lists, as an extension reads it. */
type NewChunk = { id: number; tokens: number; body: string; heading: string; sz: Uint8Array }

/** The reads and writes of the lists' upkeep on the writer's connection. */
function prepare(db: Db) {
  return {
    averages: db.prepare<[], { block: Uint8Array }>(AVERAGES_SQL),
    maxId: db.prepare<[], number | null>('SELECT MAX(id) FROM chunks').pluck(),
    getMeta: db.prepare<[string], string>('SELECT value FROM meta WHERE key = ?').pluck(),
    setMeta: db.prepare<[string, string]>(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    ),
    // FTS5's vocabulary is read in term order as it is stored, each term counted as it is read.
    vocab: db.prepare<[string], { term: string; doc: number }>(
      'SELECT term, doc FROM chunks_vocab WHERE term > ? ORDER BY term',
    ),
    docFreq: db.prepare<[string], number>('SELECT doc FROM chunks_vocab WHERE term = ?').pluck(),
    // A term's postings up to a chunk id, as FTS5 indexed them: one row an occurrence, in
    // chunk order; the chunk's length as FTS5 counts it.
    postings: db.prepare<[string, number], Omit<RarePosting, 'tokens'> & { sz: Uint8Array }>(
      `SELECT i.doc AS id, SUM(i.col = 'body_terms') AS body, SUM(i.col = 'heading_terms') AS heading, d.sz
       FROM chunks_instances i CROSS JOIN chunks_fts_docsize d ON d.id = i.doc
       WHERE i.term = ? AND i.doc <= ? GROUP BY i.doc ORDER BY i.doc`,
    ),
    chunks: db.prepare<[number, number, number], NewChunk>(
      `SELECT c.id, c.token_count AS tokens, c.body_terms AS body, c.heading_terms AS heading, d.sz
       FROM chunks c JOIN chunks_fts_docsize d ON d.id = c.id WHERE c.id > ? AND c.id <= ? ORDER BY c.id LIMIT ?`,
    ),
    list: db.prepare<[string], { upto: number; blob: Uint8Array }>(
      `SELECT ${LIST_UPTO} AS upto, blob FROM rare_postings WHERE term = ?`,
    ),
    put: db.prepare<[string, number, Uint8Array]>(
      `INSERT INTO rare_postings (term, upto, blob) VALUES (?, ?, ?)
     ON CONFLICT(term) DO UPDATE SET upto = excluded.upto, blob = excluded.blob`,
    ),
    drop: db.prepare<[string]>('DELETE FROM rare_postings WHERE term = ?'),
    least: db.prepare<[], number | null>(`SELECT MIN(${LIST_UPTO}) FROM rare_postings`).pluck(),
    dropOlder: db.prepare<[number]>('DELETE FROM rare_postings WHERE upto < ?'),
  }
}

type Rows = ReturnType<typeof prepare>

/** The vocabulary's next terms after `after`, with their document counts (at least one, if any is left). */
function readVocab(stmt: Rows, after: string): { term: string; doc: number }[] {
  const page: { term: string; doc: number }[] = []
  const started = performance.now()
  for (const row of stmt.vocab.iterate(after)) {
    page.push(row)
    if (page.length === VOCAB_PAGE || performance.now() - started >= VOCAB_SLICE_MS) break
  }
  return page
}

/** Writes `term`'s list of every chunk up to `upto` holding it. */
const putBuilt = (stmt: Rows, term: string, upto: number) =>
  stmt.put.run(
    term,
    upto,
    encodePostings(stmt.postings.all(term, upto).map(({ sz, ...p }) => ({ ...p, tokens: rowTokens(sz) }))),
  )

/**
 * Adds `posting` (of the newest chunk read so far) to `term`'s list; a term without a list
 * that is rare now gets one built up to `upto`, where the extension ends; a list grown past
 * twice `maxDocFreq` postings is dropped. False when the term has no list now.
 */
function join(stmt: Rows, maxDocFreq: number, term: string, posting: RarePosting, upto: number): boolean {
  const list = stmt.list.get(term)
  if (!list) {
    if ((stmt.docFreq.get(term) ?? Infinity) > maxDocFreq) return false
    putBuilt(stmt, term, upto)
    return true
  }
  if (posting.id <= list.upto) return true
  const all: RarePosting[] = []
  forEachPosting(list.blob, (id, body, heading, tokens) => all.push({ id, body, heading, tokens }))
  if (all.length >= 2 * maxDocFreq) {
    stmt.drop.run(term)
    return false
  }
  all.push(posting)
  stmt.put.run(term, posting.id, encodePostings(all))
  return true
}

export function createRareLists(db: Db, opts: RareListOptions) {
  const stmt = prepare(db)

  /** New chunks get ids above `upto` from now on, before any list covering them is written. */
  const reserve = (write: Write, upto: number) =>
    write(() => {
      if (Number(stmt.getMeta.get(ID_FLOOR_KEY) ?? 0) < upto) stmt.setMeta.run(ID_FLOOR_KEY, String(upto))
    })

  /** Terms found too common for a list since the last build, not asked again. */
  const common = new Set<string>()

  /** Builds the list of every term in at most `maxDocFreq` chunks. */
  async function build(write: Write, pause: () => Promise<void>, chunks: number): Promise<void> {
    common.clear()
    const upto = stmt.maxId.get() ?? 0
    reserve(write, upto)
    for (let after = '', done = false; !done;) {
      write(() => {
        const started = performance.now()
        const page = readVocab(stmt, after)
        done = page.length === 0
        for (const { term, doc } of page) {
          if (doc <= opts.maxDocFreq) putBuilt(stmt, term, upto)
          after = term
          if (performance.now() - started >= SLICE_MS) return
        }
      })
      await pause()
    }
    write(() => {
      // Terms no longer rare: their lists were not built again.
      stmt.dropOlder.run(upto)
      stmt.setMeta.run(RARE_UPTO_KEY, String(upto))
      stmt.setMeta.run(RARE_BUILT_ROWS_KEY, String(chunks))
    })
  }

  /** Brings every list up to the newest chunk (above). */
  async function extend(write: Write, pause: () => Promise<void>): Promise<void> {
    const upto = stmt.maxId.get() ?? 0
    const from = stmt.least.get() ?? upto
    if (from >= upto) return
    reserve(write, upto)
    let after = from
    let stopped = false
    for (let read = true; read && !stopped;) {
      write(() => {
        const started = performance.now()
        const chunks = stmt.chunks.all(after, upto, SCAN_STEP)
        read = chunks.length > 0
        for (const chunk of chunks) {
          if (!countedAsIndexed(chunk)) {
            // Its postings cannot be counted here: the lists stay below it, and are built again.
            stmt.setMeta.run(RARE_BUILT_ROWS_KEY, '0')
            stopped = true
            return
          }
          for (const [term, [body, heading]] of columnCounts(asIndexed(chunk.body), asIndexed(chunk.heading))) {
            if (common.has(term)) continue
            const posting = { id: chunk.id, body, heading, tokens: chunk.tokens }
            if (!join(stmt, opts.maxDocFreq, term, posting, upto)) common.add(term)
          }
          after = chunk.id
          if (performance.now() - started >= SLICE_MS) return
        }
      })
      await pause()
    }
    // Every list holds the postings of every chunk up to `upto`: each covers them now.
    if (!stopped) write(() => stmt.setMeta.run(RARE_UPTO_KEY, String(upto)))
  }

  return {
    /**
     * Builds or extends the lists when due (above), in steps; `write` runs a write
     * transaction. Stops between steps when `steps.signal` aborts: what is written stays
     * true, and a later call goes on.
     */
    async refresh(write: Write, steps: StepOptions): Promise<void> {
      const block = stmt.averages.get()?.block
      const chunks = block ? parseAverages(block).rows : 0
      if (chunks < opts.minRows) return
      const built = Number(stmt.getMeta.get(RARE_BUILT_ROWS_KEY) ?? 0)
      const pause = pacer(steps)
      if (built === 0 || chunks >= 2 * built || 2 * chunks <= built) await build(write, pause, chunks)
      else await extend(write, pause)
    },
  }
}

export type RareLists = ReturnType<typeof createRareLists>
