/**
 * FTS5's bm25() over several terms, summed outside FTS5 (pure): a search ranking its
 * selective terms from rare lists (rare-candidates.ts) adds each term's part to each chunk
 * holding it, term by term in the query's order, as fts5_aux.c adds its phrases' parts, so
 * every rank is the one FTS5 gives to the last bit (fts5-bm25.ts): a term's part is
 * fts5Rank's, negative, and adding negatives in turn gives exactly the negated sum.
 */
import { fts5Rank } from './fts5-bm25.js'
import { forEachPosting } from './rare-postings.js'

/** A chunk and its rank (negative bm25, lower is better), as FTS5's ranked query gives it. */
export type Ranked = { id: number; rank: number }

/** The chunks ranked: the best few in order, and the others' ids and ranks unordered. */
export type Taken = { best: Ranked[]; restIds: number[]; restRanks: number[] }

/**
 * Sums ranks by chunk id into arrays indexed by id, grown to the largest id met and reused
 * by every search of the connection: a thousand postings a search, where a Map of sums and
 * an object per chunk made the ranking about 3 times as slow (measured on the SciFact claims
 * while writing bench/own-postings.ts).
 */
export function createRareRanker() {
  let rank = new Float64Array(1024)
  let met = new Int32Array(1024)
  let count = 0

  /** Makes room for chunk `id` and one more chunk met. */
  function room(id: number): void {
    if (id >= rank.length) {
      let size = rank.length
      while (size <= id) size *= 2
      const bigger = new Float64Array(size)
      bigger.set(rank)
      rank = bigger
    }
    if (count === met.length) {
      const bigger = new Int32Array(2 * met.length)
      bigger.set(met)
      met = bigger
    }
  }

  /** Adds `part` to chunk `id`'s rank; a chunk's rank is 0 until its first part (every part is below 0). */
  function addPart(id: number, part: number): void {
    room(id)
    if (rank[id] === 0) met[count++] = id
    rank[id] = (rank[id] as number) + part
  }

  return {
    /**
     * Adds the part of a term of IDF `idf` found `body` times in chunk `id`'s body and
     * `heading` times in its headings, the chunk `tokens` terms long in an index averaging
     * `avgTokens`. Call term by term, in the query's order.
     */
    add(
      id: number,
      idf: number,
      body: number,
      heading: number,
      headingWeight: number,
      tokens: number,
      avgTokens: number,
    ) {
      addPart(id, fts5Rank(idf, body, heading, headingWeight, tokens, avgTokens))
    },
    /** add() for every posting of a list's blob (rare-postings.ts). */
    addList(blob: Uint8Array, idf: number, headingWeight: number, avgTokens: number): void {
      forEachPosting(blob, (id, body, heading, tokens) =>
        addPart(id, fts5Rank(idf, body, heading, headingWeight, tokens, avgTokens)),
      )
    },
    /** How many chunks have a rank. */
    size: (): number => count,
    /**
     * The best `first` chunks, best first, equal ranks by id (as FTS5 hands rows over and
     * SQLite sorts them), and the others unordered; clears the sums for the next search.
     * Sorting every chunk cost more than summing its parts: the best few are kept in order
     * as the chunks are read, and most chunks are turned away by the last of them.
     */
    take(first: number): Taken {
      const taken = takeBest(rank, met, count, first)
      count = 0
      return taken
    },
  }
}

/** take() over the sums: the best `first` of the `count` chunks in `met`, each chunk's sum cleared. */
function takeBest(rank: Float64Array, met: Int32Array, count: number, first: number): Taken {
  const best: Ranked[] = []
  const restIds: number[] = []
  const restRanks: number[] = []
  for (let i = 0; i < count; i++) {
    const id = met[i] as number
    const r = rank[id] as number
    rank[id] = 0
    const last = best[first - 1]
    if (first === 0 || (last && before(last, r, id))) {
      restIds.push(id)
      restRanks.push(r)
      continue
    }
    let at = best.length
    while (at > 0 && !before(best[at - 1] as Ranked, r, id)) at--
    best.splice(at, 0, { id, rank: r })
    if (best.length > first) {
      const out = best.pop() as Ranked
      restIds.push(out.id)
      restRanks.push(out.rank)
    }
  }
  return { best, restIds, restRanks }
}

/** Whether `a` comes before a chunk `id` of rank `r`: a lower rank, or an equal one and a lower id. */
const before = (a: Ranked, r: number, id: number): boolean => a.rank < r || (a.rank === r && a.id < id)

/** Ranked chunks best first, equal ranks by id. */
export const byRank = (a: Ranked, b: Ranked): number => a.rank - b.rank || a.id - b.id

/** The chunks take() left unordered, in order. */
export const restInOrder = (taken: Taken): Ranked[] =>
  taken.restIds.map((id, i) => ({ id, rank: taken.restRanks[i] as number })).sort(byRank)
