/**
 * Keyword retrieval: BM25 over the store's keyword index, planned by document frequency
 * (keyword-plan.ts). Phase 1 lets the engine rank the chunks matching the selective terms;
 * phase 2 scores those candidates on every query term (scores.ts: an absolute textScore,
 * BM25 with Lucene's IDF divided by the query's IDF mass) from the terms stored with each
 * chunk. One implementation for every engine (store/port.ts).
 */
import type { ChunkFilters } from '../domain/chunks.js'
import type { KeywordHit } from '../store/index-reader.js'
import type { KeywordCandidate, KeywordIndex, KeywordQuery, KeywordStats } from '../store/port.js'
import { createDocFreqMemo } from './doc-freq-memo.js'
import { planKeywordQuery, samePlan, type KeywordPlan, type RankedPlan, type TermStat } from './keyword-plan.js'
import { matchShare, termMatch, termWeight, textScoreOf } from './scores.js'
import { termFrequencies } from './term-frequencies.js'

/**
 * BM25 weight of the context column (headings and file path) relative to the body: a
 * heading names what a section is about, so a query term found there counts double.
 */
export const HEADING_WEIGHT = 2
/**
 * Postings FTS5 may score per query before common terms move to re-scoring. FTS5's bm25()
 * costs about 0.6 µs per matching row; 1,000 kept every dev-set metric within ±0.002 of
 * exact search while halving search time on 10,000 chunks (BENCHMARKS.md).
 */
export const POSTING_BUDGET = 1000

/**
 * A chunk and its absolute textScore (scores.ts), in [0, 1), higher is better; `text`, its
 * raw text, when the reader was asked for the texts of the best hits (index-reader.ts).
 */
export type KeywordSearchDeps = {
  store: KeywordIndex
  headingWeight?: number
  postingBudget?: number
}

export function createKeywordSearch(deps: KeywordSearchDeps) {
  const { store } = deps
  const headingWeight = deps.headingWeight ?? HEADING_WEIGHT
  const postingBudget = deps.postingBudget ?? POSTING_BUDGET

  // Plans before the statistics are read where reading them is a round trip of its own.
  const memo = store.candidatesWithStats ? createDocFreqMemo() : null

  function planOf(terms: readonly string[], corpus: KeywordStats): KeywordPlan {
    // While a big file is staged, document frequencies count chunks no search can see, and
    // a plan from them could rank with a term only invisible chunks hold: rank exactly.
    return planKeywordQuery(termStats(terms, corpus), corpus.rows, corpus.partial ? Infinity : postingBudget)
  }

  /**
   * The best `limit` chunks for the analysed query terms, best first. FTS5 picks the
   * candidates (BM25 over the selective terms); every candidate is then scored on all terms.
   * `texts`: hits keep the raw texts the engine read with the candidates (KeywordQuery.texts)
   * and their body terms.
   */
  async function search(
    terms: readonly string[],
    limit: number,
    filters: ChunkFilters,
    names: readonly boolean[] = [],
    texts = false,
  ): Promise<KeywordHit[]> {
    if (terms.length === 0) return []
    const query: Query = { terms, names, base: { headingWeight, ...filters, limit, texts } }
    const guessed = await searchGuessed(query)
    if (guessed.hits) return guessed.hits
    const corpus = guessed.corpus ?? (await store.keywordStats(terms))
    memo?.remember(terms, corpus)
    const plan = planOf(terms, corpus)
    switch (plan.kind) {
      case 'empty':
        return []
      case 'noise': {
        // No term tells chunks apart: the newest matches, ranked by their scores.
        const rows = await store.newestMatches({ ...query.base, terms: plan.noise.map((n) => n.term) })
        return best(score(rows, corpus, { terms, names, headingWeight }, texts), limit)
      }
      case 'ranked':
        return ranked(query, plan, await store.candidates(rankedQuery(query, plan, corpus)), corpus)
    }
  }

  /**
   * The search planned from the statistics its terms had when last read, with the
   * candidates and fresh statistics in one round trip: its hits when the fresh statistics
   * give the same plan (so the same hits as planning from them first), else those statistics.
   */
  async function searchGuessed(query: Query): Promise<{ hits?: KeywordHit[]; corpus?: KeywordStats }> {
    const guess = memo?.guess(query.terms)
    if (!memo || !guess || !store.candidatesWithStats) return {}
    const plan = planOf(query.terms, guess)
    if (plan.kind !== 'ranked') return {}
    const read = await store.candidatesWithStats(rankedQuery(query, plan, guess), query.terms)
    // Statistics that change the plan are remembered by the search planned again from them.
    if (!samePlan(planOf(query.terms, read.stats), plan)) return { corpus: read.stats }
    memo.remember(query.terms, read.stats)
    return { hits: await ranked(query, plan, read.rows, read.stats) }
  }

  /** Ranked candidates scored on every term, filled up first when too few hold a selective term. */
  async function ranked(
    query: Query,
    plan: RankedPlan,
    rows: KeywordCandidate[],
    corpus: KeywordStats,
  ): Promise<KeywordHit[]> {
    const limit = query.base.limit
    // The candidates are already several times the results wanted (search-service.ts),
    // so re-scoring them needs no extra headroom.
    if (rows.length < limit && plan.common.length > 0) {
      // Too few rows hold a selective term: fill up with rows holding only common terms.
      const seen = new Set(rows.map((r) => r.id))
      const common = plan.common.map((c) => c.term)
      const more = await store.newestMatches({ ...query.base, terms: common })
      rows.push(...more.filter((r) => !seen.has(r.id)))
    }
    return best(score(rows, corpus, { ...query, headingWeight }, query.base.texts === true), limit)
  }

  return { search }
}

type Query = {
  terms: readonly string[]
  names: readonly boolean[]
  base: Omit<KeywordQuery, 'terms'>
}

/**
 * Scores each candidate on every query term, from the terms stored with it
 * (term-frequencies.ts), a heading's occurrence counting `headingWeight` times; `withTerms`:
 * hits keep their body terms (KeywordHit.bodyTerms).
 */
function score(
  rows: KeywordCandidate[],
  corpus: KeywordStats,
  query: { terms: readonly string[]; names: readonly boolean[]; headingWeight: number },
  withTerms: boolean,
): KeywordHit[] {
  const { terms, names, headingWeight } = query
  const stats = termStats(terms, corpus)
  const corpusRows = corpus.rows
  const idfs = stats.map((s, i) => termWeight(corpusRows, s.docFreq, names[i] ?? false))
  const frequenciesIn = termFrequencies(terms, headingWeight)
  return rows.map((row) => {
    const frequency = frequenciesIn(row)
    const tfs = stats.map(({ docFreq }, i) => (docFreq === 0 ? 0 : termMatch(frequency(i), row.tokenCount)))
    return toHit(row, textScoreOf(matchShare(idfs, tfs)), withTerms)
  })
}

/** The engine's query for a ranked plan: its selective terms, with their document frequencies. */
function rankedQuery(query: Query, plan: RankedPlan, corpus: KeywordStats): KeywordQuery {
  const docFreqs = new Map(query.terms.map((term, i) => [term, corpus.docFreqs[i] ?? 0]))
  return { ...query.base, terms: plan.selective, docFreqs: plan.selective.map((term) => docFreqs.get(term) ?? 0) }
}

const termStats = (terms: readonly string[], corpus: KeywordStats): TermStat[] =>
  terms.map((term, i) => ({ term, docFreq: corpus.docFreqs[i] as number }))

function best(hits: KeywordHit[], limit: number): KeywordHit[] {
  return hits.sort((a, b) => b.textScore - a.textScore || a.id - b.id).slice(0, limit)
}

function toHit(row: KeywordCandidate, textScore: number, withTerms: boolean): KeywordHit {
  return {
    id: row.id,
    path: row.path,
    source: row.source,
    startLine: row.startLine,
    endLine: row.endLine,
    tokenCount: row.tokenCount,
    datedMs: row.datedMs,
    entry: row.entry,
    textScore,
    ...(row.text !== undefined && { text: row.text }),
    ...(withTerms && { bodyTerms: row.bodyTerms }),
  }
}

export type KeywordSearch = ReturnType<typeof createKeywordSearch>
