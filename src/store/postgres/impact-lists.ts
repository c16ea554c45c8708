/**
 * Impact lists: for each term of an index found in at least `minDocFreq` chunks, its best
 * postings by impact (impact.ts) in `postings`, ordered by a B-tree, so a search on a common
 * term reads the few postings that can win instead of every chunk holding it
 * (list-candidates.ts). A list holds every posting of its term whose impact is at least the
 * term's `floor` (terms.floor; NULL: no list), and `listed` counts its rows. Kept in step by
 * the index's writes, inside their transaction:
 *  - a term whose document frequency reaches `minDocFreq` gets its list, read from the
 *    chunks holding it: its `keep` best postings, ties at the last included;
 *  - a new chunk's posting joins each list whose floor it reaches;
 *  - a deleted chunk's postings leave their lists;
 *  - a list grown past 2 × `keep` is cut back to `keep` (the floor rises), and a list that
 *    deletions shrank below `keep` / 4 is read again.
 * A full pass into an empty index pauses them, and they are built after it (list-resume.ts).
 * A few postings per term are written: a full postings table made a cold index of 10,000
 * chunks 1.6 million rows.
 */
import type { Client, Tables } from './database.js'
import { IMPACT_HEADING_WEIGHT, IMPACT_REFERENCE_TOKENS, postingImpact } from '../impact.js'
import { termAt, termSlot } from './read-sql.js'
import { termCheck, termHash, termKeySql } from './term-hash.js'
import type { ChunkTerms, WriteTerms } from './write-terms.js'

export type ImpactListOptions = {
  /** Document frequency from which a term gets a list (default LIST_MIN_DOC_FREQ). */
  minDocFreq: number
  /** Postings a list is built or cut back to (default LIST_KEEP). */
  keep: number
  /** Chunks a compaction reads per statement to build paused lists (default list-resume.ts RESUME_CHUNKS). */
  resumeChunks?: number | undefined
}

/**
 * Document frequency from which a term has a list: search plans score at most 1,000
 * postings in the engine (search/keyword-search.ts POSTING_BUDGET) unless a query's rarest
 * term alone has more, so rarer terms are read as they are (GIN).
 */
export const LIST_MIN_DOC_FREQ = 1000
/**
 * Postings a list is built or cut back to (it holds up to twice as many): a default search
 * (24 candidates) reads 112 of them (list-candidates.ts listRead), one of the most a search
 * asks for (200) 464.
 */
export const LIST_KEEP = 256

/** A chunk this write inserted: its id, terms with their counts (body, headings), and length. */
export type WrittenChunk = { id: number; terms: ChunkTerms; tokens: number }
/**
 * A term's counts after a write, for those with a list or a document frequency that calls for
 * one; `reference`: the chunk length its list's impacts normalise against (null: before
 * schema 7, IMPACT_REFERENCE_TOKENS).
 */
export type TermState = { term: string; df: number; floor: number | null; listed: number; reference: number | null }

/** The impact of `posting`'s counts in SQL against chunks of `reference` terms, as postingImpact computes it. */
export const impactSql = (body: string, heading: string, tokens: string, reference: string) =>
  `((${body})::float8 + ${IMPACT_HEADING_WEIGHT}::float8 * (${heading})::float8) * 2.2::float8
   / ((${body})::float8 + ${IMPACT_HEADING_WEIGHT}::float8 * (${heading})::float8
      + 1.2::float8 * (0.25::float8 + 0.75::float8 * (${tokens})::float8 / (${reference})::float8))`

/**
 * The chunk length a list built now normalises against: the index's average, as its
 * candidates are ranked with (a fixed 250 against this corpus's 202 made the bound of
 * postings not read too loose to stop at a million chunks: BENCHMARKS.md); the list keeps
 * it (terms.reference) for the postings added to it later.
 */
export const averageTokens = (indexes: string) =>
  `COALESCE((SELECT i.token_sum::float8 / NULLIF(i.chunk_rows, 0) FROM ${indexes} i WHERE i.id = $1),
    ${IMPACT_REFERENCE_TOKENS}::float8)`

/** A listed term's key in the chunks' keys (term-hash.ts), from its hashes. */
const KEY = termKeySql('v.hash', 'v.checked', '$1')

/** The postings of `written` (chunks' terms by slot of `terms`) that reach their lists' floors. */
function listedPostings(states: readonly TermState[], terms: WriteTerms, written: readonly WrittenChunk[]) {
  const listed = new Map(states.flatMap((s) => (s.floor === null ? [] : [[terms.slotOf(s.term), s] as const])))
  const rows = { terms: [] as string[], impacts: [] as number[], ids: [] as number[] }
  const counts = { body: [] as number[], heading: [] as number[], tokens: [] as number[] }
  for (const chunk of written) {
    const { slots, body: bodies, heading: headings } = chunk.terms
    for (let i = 0; i < slots.length; i++) {
      const list = listed.get(slots[i] as number)
      if (list === undefined) continue
      const body = bodies[i] as number
      const heading = headings[i] as number
      const impact = postingImpact(body, heading, chunk.tokens, list.reference ?? IMPACT_REFERENCE_TOKENS)
      if (impact < (list.floor as number)) continue
      rows.terms.push(list.term)
      rows.impacts.push(impact)
      rows.ids.push(chunk.id)
      counts.body.push(body)
      counts.heading.push(heading)
      counts.tokens.push(chunk.tokens)
    }
  }
  return { rows, counts }
}

export function createImpactLists(t: Tables, opts: ImpactListOptions) {
  /** (Re)builds the lists of `terms` from the chunks holding them. */
  async function build(c: Client, indexId: number, terms: readonly string[]): Promise<void> {
    if (terms.length === 0) return
    await c.query(`DELETE FROM ${t.postings} WHERE index_id = $1 AND term = ANY($2::text[])`, [indexId, terms])
    // rank() gives ties one rank: the list holds every posting as good as its last.
    await c.query(
      `WITH ref AS (SELECT ${averageTokens(t.indexes)} AS tokens),
       ins AS (
         INSERT INTO ${t.postings} (index_id, term, impact, chunk_id, body, heading, tokens)
         SELECT $1, u.term, x.impact, x.id, x.body, x.heading, x.tokens
         FROM (SELECT v.term, ${KEY} AS key FROM unnest($2::text[], $4::int4[], $5::int4[]) AS v(term, hash, checked)) u
           CROSS JOIN ref
         CROSS JOIN LATERAL (
           SELECT r.* FROM (
             SELECT s.*, rank() OVER (ORDER BY s.impact DESC) AS place FROM (
               SELECT c.id, n.body, n.heading, c.token_count AS tokens,
                 ${impactSql('n.body', 'n.heading', 'c.token_count', 'ref.tokens')} AS impact
               FROM ${t.chunks} c
               CROSS JOIN LATERAL (SELECT ${termSlot('u.key')} AS slot OFFSET 0) ks
               CROSS JOIN LATERAL (SELECT ${termAt('u.key', 'ks.slot')} AS at OFFSET 0) k
               CROSS JOIN LATERAL (SELECT COALESCE(c.counts[2 * k.at - 1], 0) AS body,
                 COALESCE(c.counts[2 * k.at], 0) AS heading OFFSET 0) n
               WHERE c.index_id = $1 AND c.keys && ARRAY[u.key]) s) r
           WHERE r.place <= $3) x
         RETURNING term, impact)
       UPDATE ${t.terms} AS t SET floor = s.lowest, listed = s.n, reference = ref.tokens
       FROM (SELECT term, MIN(impact) AS lowest, COUNT(*)::int AS n FROM ins GROUP BY term) s, ref
       WHERE t.index_id = $1 AND t.term = s.term`,
      [indexId, terms, opts.keep, terms.map(termHash), terms.map(termCheck)],
    )
  }

  /** Cuts the lists of `terms` back to their `keep` best postings (ties kept), raising their floors. */
  async function cut(c: Client, indexId: number, terms: readonly string[]): Promise<void> {
    if (terms.length === 0) return
    await c.query(
      `WITH cut AS (
         SELECT u.term, (SELECT p.impact FROM ${t.postings} p WHERE p.index_id = $1 AND p.term = u.term
           ORDER BY p.impact DESC OFFSET $3 - 1 LIMIT 1) AS floor
         FROM unnest($2::text[]) AS u(term)),
       gone AS (
         DELETE FROM ${t.postings} p USING cut WHERE p.index_id = $1 AND p.term = cut.term AND p.impact < cut.floor
         RETURNING p.term),
       -- Counted once per term: a count in each updated row read all of gone again.
       n AS (SELECT term, COUNT(*)::int AS n FROM gone GROUP BY term)
       UPDATE ${t.terms} AS t SET floor = cut.floor, listed = t.listed - COALESCE(n.n, 0)
       FROM cut LEFT JOIN n ON n.term = cut.term
       WHERE t.index_id = $1 AND t.term = cut.term AND cut.floor IS NOT NULL`,
      [indexId, terms, opts.keep],
    )
  }

  /**
   * Adds the written chunks' postings that reach their lists' floors (`terms`: the write's,
   * which the chunks' slots are of); returns the lists' new sizes.
   */
  async function add(
    c: Client,
    indexId: number,
    states: readonly TermState[],
    terms: WriteTerms,
    written: readonly WrittenChunk[],
  ) {
    const { rows, counts } = listedPostings(states, terms, written)
    if (rows.ids.length === 0) return []
    const { rows: sizes } = await c.query<{ term: string; listed: number }>(
      `WITH ref AS (SELECT ${averageTokens(t.indexes)} AS tokens),
       ins AS (
         INSERT INTO ${t.postings} (index_id, term, impact, chunk_id, body, heading, tokens)
         SELECT $1, u.term, u.impact, u.id, u.body, u.heading, u.tokens
         FROM unnest($2::text[], $3::float8[], $4::bigint[], $5::int[], $6::int[], $7::int[])
           AS u(term, impact, id, body, heading, tokens)
         RETURNING term)
       UPDATE ${t.terms} AS t SET listed = t.listed + s.n
       FROM (SELECT term, COUNT(*)::int AS n FROM ins GROUP BY term) s
       WHERE t.index_id = $1 AND t.term = s.term
       RETURNING t.term, t.listed`,
      [indexId, rows.terms, rows.impacts, rows.ids, counts.body, counts.heading, counts.tokens],
    )
    return sizes
  }

  return {
    minDocFreq: opts.minDocFreq,
    build,
    cut,
    /**
     * After a write's document frequencies are counted (`states`: the terms it touched that
     * have a list or should): adds its chunks' postings, builds the lists now due, and cuts
     * back those grown too long.
     */
    async update(
      c: Client,
      indexId: number,
      states: readonly TermState[],
      terms: WriteTerms,
      written: readonly WrittenChunk[],
    ) {
      const due = states.filter((s) => s.df >= opts.minDocFreq && (s.floor === null || s.listed < opts.keep / 4))
      const rebuilt = new Set(due.map((s) => s.term))
      const sizes = await add(
        c,
        indexId,
        states.filter((s) => !rebuilt.has(s.term)),
        terms,
        written,
      )
      await build(c, indexId, [...rebuilt])
      await cut(
        c,
        indexId,
        sizes.filter((s) => s.listed > 2 * opts.keep).map((s) => s.term),
      )
    },
    /** Takes deleted chunks' postings out of their lists (before their terms are counted out). */
    async remove(c: Client, ids: readonly number[]): Promise<void> {
      await c.query(
        `WITH gone AS (DELETE FROM ${t.postings} WHERE chunk_id = ANY($1::bigint[]) RETURNING index_id, term)
         UPDATE ${t.terms} AS t SET listed = t.listed - s.n
         FROM (SELECT index_id, term, COUNT(*)::int AS n FROM gone GROUP BY index_id, term) s
         WHERE t.index_id = s.index_id AND t.term = s.term`,
        [ids],
      )
    },
  }
}

export type ImpactLists = ReturnType<typeof createImpactLists>
