/**
 * Keyword retrieval: BM25 over FTS5, planned by document frequency (keyword-plan.ts).
 * Phase 1 lets FTS5 rank the rows matching the selective terms; phase 2 adds each common
 * term's exact BM25 contribution (bm25.ts) to the best candidates, from the terms stored
 * with each chunk. When the plan is exact, phase 1 is the whole search.
 */
import type { IndexStore } from '../store/index-store.js'
import type { ChunkHead, KeywordQuery, KeywordRow } from '../store/search-repo.js'
import { bm25Idf, bm25TermScore, countTerm } from './bm25.js'
import { buildFtsQuery } from './fts-query.js'
import { planKeywordQuery, type TermStat } from './keyword-plan.js'

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

export type KeywordFilters = Pick<KeywordQuery, 'pathPrefix' | 'source' | 'excludeMemoryFile'>

/** A chunk and its BM25 score (positive, higher is better). */
export type KeywordHit = ChunkHead & { bm25: number }

export type KeywordSearchDeps = {
  store: Pick<IndexStore, 'keyword' | 'anyMatch' | 'docFreqs' | 'corpusStats'>
  headingWeight?: number
  postingBudget?: number
}

export function createKeywordSearch(deps: KeywordSearchDeps) {
  const { store } = deps
  const headingWeight = deps.headingWeight ?? HEADING_WEIGHT
  const postingBudget = deps.postingBudget ?? POSTING_BUDGET

  /** Adds the exact BM25 of the common terms to each candidate's phase-1 score. */
  function rescore(rows: KeywordRow[], common: readonly TermStat[]): KeywordHit[] {
    const { rows: corpusRows, avgTokens } = store.corpusStats()
    const idfs = common.map((c) => bm25Idf(corpusRows, c.docFreq))
    return rows.map((row) => {
      let bm25 = -row.rank
      common.forEach(({ term }, i) => {
        const freq = countTerm(row.bodyTerms ?? '', term) + headingWeight * countTerm(row.headingTerms ?? '', term)
        bm25 += bm25TermScore(idfs[i] as number, freq, row.tokenCount, avgTokens)
      })
      return withoutTerms(row, bm25)
    })
  }

  /** The best `limit` chunks for the analysed query terms, by BM25, best first. */
  function search(terms: readonly string[], limit: number, filters: KeywordFilters): KeywordHit[] {
    if (terms.length === 0) return []
    const docFreqs = store.docFreqs(terms)
    const stats = terms.map((term, i) => ({ term, docFreq: docFreqs[i] as number }))
    const plan = planKeywordQuery(stats, store.corpusStats().rows, postingBudget)
    const base = { headingWeight, ...filters, limit }
    switch (plan.kind) {
      case 'empty':
        return []
      case 'noise': {
        // No term tells chunks apart: the newest matches, in their (tiny) BM25 order.
        const match = buildFtsQuery(plan.noise.map((n) => n.term)) as string
        return best(rescore(store.anyMatch({ ...base, match }), plan.noise), limit)
      }
      case 'ranked': {
        const match = buildFtsQuery(plan.selective) as string
        if (plan.common.length === 0) {
          return store.keyword({ ...base, match }, { withTerms: false }).map((row) => withoutTerms(row, -row.rank))
        }
        // The candidates are already several times the results wanted (search-service.ts),
        // so re-scoring them needs no extra headroom.
        const rows = store.keyword({ ...base, match }, { withTerms: true })
        if (rows.length < limit) {
          // Too few rows hold a selective term: fill up with rows holding only common terms.
          const seen = new Set(rows.map((r) => r.id))
          const commonMatch = buildFtsQuery(plan.common.map((c) => c.term)) as string
          rows.push(...store.anyMatch({ ...base, match: commonMatch }).filter((r) => !seen.has(r.id)))
        }
        return best(rescore(rows, plan.common), limit)
      }
    }
  }

  return { search }
}

function best(hits: KeywordHit[], limit: number): KeywordHit[] {
  return hits.sort((a, b) => b.bm25 - a.bm25 || a.id - b.id).slice(0, limit)
}

function withoutTerms(row: KeywordRow, bm25: number): KeywordHit {
  return {
    id: row.id,
    path: row.path,
    source: row.source,
    startLine: row.startLine,
    endLine: row.endLine,
    tokenCount: row.tokenCount,
    bm25,
  }
}

export type KeywordSearch = ReturnType<typeof createKeywordSearch>
