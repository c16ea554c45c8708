/**
 * Search orchestration (SPEC §3): analyse the query, run BM25 over FTS5, map ranks to
 * textScore, drop near-duplicate ranges, apply minScore and maxResults, cut snippets.
 */
import type { Config } from '../config/config.js'
import { appError } from '../shared/errors.js'
import type { Logger } from '../shared/logger.js'
import type { IndexStore } from '../store/index-store.js'
import { queryTerms } from '../text/analyzer.js'
import { dropDuplicateRanges } from './dedupe.js'
import { buildFtsQuery } from './fts-query.js'
import { bm25ToTextScores, roundScore } from './scores.js'
import { buildSnippet } from './snippet.js'
import type { SearchHit, SearchRequest, SearchResponse } from './types.js'

/** Candidates fetched per requested result, so dedupe and minScore still leave enough. */
export const CANDIDATE_MULTIPLIER = 4
/** Upper bound on candidates fetched per search. */
export const MAX_CANDIDATES = 200
/**
 * BM25 weight of the context column (headings and file path) relative to the body. A
 * heading names what a section is about, so a query term found there counts double.
 */
export const HEADING_WEIGHT = 2

export type SearchServiceDeps = {
  store: Pick<IndexStore, 'keyword'>
  settings: Config['search']
  log: Logger
}

const elapsed = (since: number) => Math.round((performance.now() - since) * 1000) / 1000

export function createSearchService(deps: SearchServiceDeps) {
  const { store, settings } = deps

  function search(req: SearchRequest): SearchResponse {
    const started = performance.now()
    const maxResults = req.maxResults ?? settings.maxResults
    const minScore = req.minScore ?? settings.minScore
    if (req.mode === 'vector') {
      throw appError('EMBEDDING_UNAVAILABLE', 'Vector search needs an embedding provider (MNEMO_EMBED_PROVIDER)')
    }
    const terms = queryTerms(req.query)
    const match = buildFtsQuery(terms)
    const onlySource = req.sources && new Set(req.sources).size === 1 ? req.sources[0] : undefined
    const rows = match
      ? store.keyword({
          match,
          limit: Math.min(MAX_CANDIDATES, maxResults * CANDIDATE_MULTIPLIER),
          headingWeight: HEADING_WEIGHT,
          pathPrefix: req.pathPrefix,
          source: onlySource,
          excludeMemoryFile: req.scope === 'shared',
        })
      : []
    const keywordMs = elapsed(started)
    const textScores = bm25ToTextScores(rows.map((r) => r.rank))
    const ranked = rows.map((row, i) => ({ row, score: textScores[i] as number }))
    const kept = dropDuplicateRanges(
      ranked.map((h) => ({ ...h, path: h.row.path, startLine: h.row.startLine, endLine: h.row.endLine })),
    )
    const results: SearchHit[] = kept
      .filter((h) => h.score >= minScore)
      .slice(0, maxResults)
      .map(({ row, score }) => ({
        path: row.path,
        startLine: row.startLine,
        endLine: row.endLine,
        snippet: buildSnippet(row.text, terms.terms, settings.snippetMaxChars),
        score: roundScore(score),
        textScore: roundScore(score),
        vectorScore: 0,
        source: row.source,
      }))
    return {
      results,
      mode: 'keyword',
      usage: { embeddingTokens: 0, rerankTokens: 0 },
      timingsMs: { keyword: keywordMs, embed: 0, vector: 0, rerank: 0, total: elapsed(started) },
    }
  }

  return { search }
}

export type SearchService = ReturnType<typeof createSearchService>
