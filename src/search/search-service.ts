/**
 * Search orchestration (SPEC §3): analyse the query, retrieve BM25 candidates through the
 * index reader, map BM25 to textScore, drop near-duplicate ranges, apply minScore and
 * maxResults, cut snippets.
 */
import type { Config } from '../config/config.js'
import { appError } from '../shared/errors.js'
import { queryTerms } from '../text/analyzer.js'
import { dropDuplicateRanges } from './dedupe.js'
import type { IndexReader } from './index-reader.js'
import { relativeScores, roundScore } from './scores.js'
import { buildSnippet } from './snippet.js'
import type { SearchHit, SearchRequest, SearchResponse } from './types.js'

/** Candidates fetched per requested result, so dedupe and minScore still leave enough. */
export const CANDIDATE_MULTIPLIER = 4
/** Upper bound on candidates fetched per search. */
export const MAX_CANDIDATES = 200

export type SearchServiceDeps = {
  reader: Pick<IndexReader, 'keyword' | 'texts'>
  settings: Config['search']
}

const elapsed = (since: number) => Math.round((performance.now() - since) * 1000) / 1000

export function createSearchService(deps: SearchServiceDeps) {
  const { reader, settings } = deps

  async function search(req: SearchRequest): Promise<SearchResponse> {
    const started = performance.now()
    const maxResults = req.maxResults ?? settings.maxResults
    const minScore = req.minScore ?? settings.minScore
    if (req.mode === 'vector') {
      throw appError('EMBEDDING_UNAVAILABLE', 'Vector search needs an embedding provider (MNEMO_EMBED_PROVIDER)')
    }
    const terms = queryTerms(req.query)
    const onlySource = req.sources && new Set(req.sources).size === 1 ? req.sources[0] : undefined
    const rows =
      terms.length === 0
        ? []
        : await reader.keyword({
            terms,
            limit: Math.min(MAX_CANDIDATES, maxResults * CANDIDATE_MULTIPLIER),
            filters: { pathPrefix: req.pathPrefix, source: onlySource, excludeMemoryFile: req.scope === 'shared' },
          })
    const keywordMs = elapsed(started)
    const textScores = relativeScores(rows.map((r) => r.bm25))
    const top = dropDuplicateRanges(rows.map((row, i) => ({ ...row, score: textScores[i] as number })))
      .filter((h) => h.score >= minScore)
      .slice(0, maxResults)
    const texts = top.length === 0 ? new Map<number, string>() : await reader.texts(top.map((h) => h.id))
    const results: SearchHit[] = []
    for (const hit of top) {
      const text = texts.get(hit.id)
      // A chunk replaced by a sync between the two reads is no longer in the index.
      if (text === undefined) continue
      const score = roundScore(hit.score)
      results.push({
        path: hit.path,
        startLine: hit.startLine,
        endLine: hit.endLine,
        snippet: buildSnippet(text, terms, settings.snippetMaxChars),
        score,
        textScore: score,
        vectorScore: 0,
        source: hit.source,
      })
    }
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
