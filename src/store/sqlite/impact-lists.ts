/**
 * Impact lists on SQLite: for each term in at least `minDocFreq` chunks, its best `keep`
 * postings by impact (store/impact.ts, against the corpus's average length when the list was
 * built: its `reference`) in impact_postings, so a one-term search reads a few
 * hundred postings instead of FTS5 scoring every chunk holding the term
 * (list-candidates.ts). A list covers the chunks with ids up to its term's `upto`: every
 * posting there that it does not hold has an impact of at most its `floor`. Chunks written
 * since have higher ids (schema.ts ID_FLOOR_KEY) and a search reads them from FTS5; deleted
 * chunks are simply not found. So no write touches a list, and a list never changes an
 * answer, however old.
 *
 * Lists are refreshed in the background after syncs (index-store.ts compact), in steps of
 * a few ms:
 *  - built from every chunk when the index has `minRows` chunks and none were built yet,
 *    or its size doubled or halved since (terms that became common get lists then);
 *  - otherwise brought up to the newest chunk: the chunks past a list's `upto` are read and
 *    those that beat it join it.
 * Postings are counted from each chunk's analysed terms, as FTS5 indexed them (schema.ts).
 */
import type { StepOptions } from '../port.js'
import { createTermCounter } from '../../text/term-count.js'
import { postingImpact } from '../impact.js'
import type { Db } from './database.js'
import { AVERAGES_SQL, fts5AvgTokens, parseAverages } from './fts5-bm25.js'
import { ID_FLOOR_KEY } from './schema.js'
import { createImpactRows, type ChunkTerms, type ImpactRows, type TermRow } from './impact-rows.js'
import type { TermDocs } from './term-docs.js'
import { createTopImpacts, type Posting, type TopImpacts } from './top-impacts.js'
import { pacer, type Write } from './upkeep-steps.js'

export type ImpactListOptions = {
  /** Document frequency from which a term gets a list. */
  minDocFreq: number
  /** Postings a list holds. */
  keep: number
  /** Chunks from which an index has lists at all. */
  minRows: number
  /** Longest stretch of reading the vocabulary in one step, in ms (default VOCAB_SLICE_MS; 0: a term a step). */
  vocabSliceMs?: number
}

/**
 * FTS5 scores about 1.3 µs a posting (BENCHMARKS.md, issue 35): a term in fewer than 5,000
 * chunks costs a one-term search under 7 ms, not worth a list.
 */
export const LIST_MIN_DOC_FREQ = 5000
/** A default search (24 candidates) reads 112 postings, one of the most a search asks for (200) all 256. */
export const LIST_KEEP = 256
/** Below 4 × LIST_MIN_DOC_FREQ chunks, a term in 5,000 is found in a quarter of them: no lists. */
export const LIST_MIN_ROWS = 4 * LIST_MIN_DOC_FREQ

/** meta key: the index's chunk count when its lists were last built from every chunk. */
export const BUILT_ROWS_KEY = 'impact_built_rows'
/*
 * Steps hold the event loop for a few ms, as the FTS5 merge's do (fts-compaction.ts): a
 * search's request waits for the step under way.
 */
/**
 * Chunks read in one step: about 55 µs each at 300,001 chunks (reading them, counting the
 * listed terms among theirs, keeping the best postings), so about 3.5 ms a step.
 */
const SCAN_STEP = 64
/**
 * Longest stretch of reading the vocabulary in one step, in ms: FTS5 counts each term's rows
 * as it is read, 0.1 µs a row, so most terms cost nothing and a term in half of a million
 * chunks 50 ms on its own. A step ends after the term that crosses it, so one such term at
 * most stretches it (a fixed four terms a step could hold four).
 */
const VOCAB_SLICE_MS = 3
/** Lists written in one transaction (256 rows each, about 1 µs a row). */
const WRITE_STEP = 8

/** A vocabulary term and the number of chunks holding it. */
type VocabTerm = { term: string; doc: number }

/**
 * Reads the vocabulary's terms after `after` with their document counts for up to
 * `sliceMs` (at least one term); `last`: none is left after them.
 */
function readVocab(rows: ImpactRows, after: string, sliceMs: number): { terms: VocabTerm[]; last: boolean } {
  const terms: VocabTerm[] = []
  const started = performance.now()
  for (const row of rows.vocab.iterate(after)) {
    terms.push(row)
    if (performance.now() - started >= sliceMs) return { terms, last: false }
  }
  return { terms, last: true }
}

/** `termDocs`: where the writer keeps the document counts of the terms that get lists. */
export function createImpactLists(db: Db, opts: ImpactListOptions, termDocs: Pick<TermDocs, 'keep' | 'size'>) {
  const rows = createImpactRows(db)
  const averages = db.prepare<[], { block: Uint8Array }>(AVERAGES_SQL)

  /**
   * Reads the chunks with ids in (`after`, `upto`] in steps, handing each posting of one of
   * `terms` (the chunk and the term's counts in it) to `take`.
   */
  async function scan(
    after: number,
    upto: number,
    terms: readonly string[],
    take: (term: string, chunk: ChunkTerms, body: number, heading: number) => void,
    pause: () => Promise<void>,
  ): Promise<void> {
    const counter = createTermCounter(terms)
    for (;;) {
      const chunks = rows.chunks.all(after, upto, SCAN_STEP)
      for (const chunk of chunks) {
        counter.count(chunk.body, chunk.heading, (t, body, heading) => take(terms[t] as string, chunk, body, heading))
        after = chunk.id
      }
      if (chunks.length < SCAN_STEP) return
      await pause()
    }
  }

  /** New chunks get ids above `upto` from now on, before any list covering them is written. */
  const reserve = (write: Write, upto: number) =>
    write(() => {
      if (Number(rows.meta(ID_FLOOR_KEY) ?? 0) < upto) rows.setMeta.run(ID_FLOOR_KEY, String(upto))
    })

  /** Builds the list of every term in `minDocFreq` chunks or more from every chunk. */
  async function build(write: Write, steps: StepOptions, chunks: number, reference: number): Promise<void> {
    const pause = pacer(steps)
    const upto = rows.maxId()
    reserve(write, upto)
    const lists = new Map<string, TopImpacts>()
    for (let after = ''; ;) {
      // Counted inside a write transaction: no chunk can change between the count and its keeping.
      let step: { terms: VocabTerm[]; last: boolean } = { terms: [], last: true }
      write(() => {
        step = readVocab(rows, after, opts.vocabSliceMs ?? VOCAB_SLICE_MS)
        for (const { term, doc } of step.terms) {
          if (doc < opts.minDocFreq) continue
          lists.set(term, createTopImpacts(opts.keep, { floor: 0, postings: [] }))
          termDocs.keep(term, doc)
        }
      })
      if (step.last) break
      after = (step.terms.at(-1) as { term: string }).term
      await pause()
    }
    await scan(
      0,
      upto,
      [...lists.keys()],
      (term, chunk, body, heading) =>
        lists.get(term)?.add(chunk.id, postingImpact(body, heading, chunk.tokens, reference)),
      pause,
    )
    const terms = [...lists.keys()]
    for (let i = 0; i < terms.length; i += WRITE_STEP) {
      write(() => {
        for (const term of terms.slice(i, i + WRITE_STEP))
          rows.putList(term, lists.get(term) as TopImpacts, reference, upto)
      })
      await pause()
    }
    write(() => {
      // Terms no longer common: their lists were not built again.
      rows.dropOlder.run(upto)
      rows.dropOlderTerms.run(upto)
      rows.setMeta.run(BUILT_ROWS_KEY, String(chunks))
    })
  }

  /** Brings every list up to the newest chunk: the postings written since that beat it join it. */
  async function extend(write: Write, steps: StepOptions): Promise<void> {
    const pause = pacer(steps)
    const upto = rows.maxId()
    const terms = new Map(rows.terms.all().map((t) => [t.term, t]))
    const from = [...terms.values()].reduce((least, t) => Math.min(least, t.upto), Infinity)
    if (terms.size === 0 || from >= upto) return
    reserve(write, upto)
    const added = new Map<string, Posting[]>()
    await scan(
      from,
      upto,
      [...terms.keys()],
      (term, chunk, body, heading) => {
        const row = terms.get(term) as TermRow
        if (chunk.id <= row.upto) return
        let list = added.get(term)
        if (!list) added.set(term, (list = []))
        list.push({ id: chunk.id, impact: postingImpact(body, heading, chunk.tokens, row.reference) })
      },
      pause,
    )
    const changed = [...added.keys()]
    for (let i = 0; i < changed.length; i += WRITE_STEP) {
      write(() => {
        for (const term of changed.slice(i, i + WRITE_STEP)) {
          const row = terms.get(term) as TermRow
          const postings = added.get(term) as Posting[]
          const best = postings.reduce((most, p) => Math.max(most, p.impact), 0)
          if (row.listed >= opts.keep && best <= row.lowest) {
            // None beats the list: the list stays, its floor covers them.
            rows.raiseFloor.run(Math.max(row.floor, best), upto, term)
            continue
          }
          const top = createTopImpacts(opts.keep, { floor: row.floor, postings: rows.postings.all(term) })
          for (const p of postings) top.add(p.id, p.impact)
          rows.putList(term, top, row.reference, upto)
        }
      })
      await pause()
    }
    // The other lists had no posting among the new chunks.
    write(() => rows.advance.run(upto, upto))
  }

  return {
    /**
     * Builds or extends the lists when due (above), in steps; `write` runs a write
     * transaction. Stops between steps when `steps.signal` aborts: what is written stays
     * true, and a later call goes on.
     */
    async refresh(write: Write, steps: StepOptions): Promise<void> {
      const block = averages.get()?.block
      const stats = block ? parseAverages(block) : { rows: 0, tokens: 0 }
      const chunks = stats.rows
      if (chunks < opts.minRows) return
      const built = Number(rows.meta(BUILT_ROWS_KEY) ?? 0)
      // Lists built before the writer kept their terms' counts (schema version 9) are built
      // again, which counts them.
      const uncounted = termDocs.size() === 0 && rows.terms.all().length > 0
      // Impacts against the corpus's average length: the closer, the tighter impactBound.
      if (built === 0 || chunks >= 2 * built || 2 * chunks <= built || uncounted)
        await build(write, steps, chunks, fts5AvgTokens(stats))
      else await extend(write, steps)
    },
  }
}

export type ImpactLists = ReturnType<typeof createImpactLists>
