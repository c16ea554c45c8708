/**
 * Search orchestration (SPEC §3): embed the query, retrieve keyword and vector candidates in
 * parallel through the index reader, merge them (merge.ts), drop near-duplicate ranges,
 * rerank the head (rerank-step.ts), apply minScore and maxResults, cut snippets. A vector or
 * rerank stage that fails degrades the answer — keyword results, `degraded` set, a warning
 * logged — unless the request asked for vector search alone.
 */
import type { Config } from '../config/config.js'
import type { RerankProvider } from '../providers/types.js'
import { isZeroVector } from '../providers/vectors.js'
import { appError } from '../shared/errors.js'
import type { Logger } from '../shared/logger.js'
import { queryTerms } from '../text/analyzer.js'
import { dropDuplicateRanges } from './dedupe.js'
import type { IndexReader } from './index-reader.js'
import type { KeywordHit } from './keyword-search.js'
import { mergeHybrid, type Merged } from './merge.js'
import type { QueryEmbedder } from './query-embedder.js'
import { applyRerank } from './rerank-step.js'
import { relativeScores, roundScore } from './scores.js'
import { buildSnippet } from './snippet.js'
import type { SearchHit, SearchMode, SearchRequest, SearchResponse } from './types.js'
import type { VectorHit } from './vector-search.js'

export type SearchServiceDeps = {
  reader: Pick<IndexReader, 'keyword' | 'vector' | 'texts'>
  /** Null without an embedding provider: searches run by keyword. */
  embedder: Pick<QueryEmbedder, 'embed'> | null
  /**
   * False while the index holds vectors of other embedding settings (until the rebuild for
   * the new ones is swapped in): searches then answer by keyword, degraded.
   */
  vectorsReady: () => boolean
  /** Called before each search (the sync worker's check for changes not yet synced). */
  onSearch: () => void
  reranker: Pick<RerankProvider, 'id' | 'rerank'> | null
  settings: Config['search']
  rerank: Pick<Config['rerank'], 'topN' | 'timeoutMs'>
  log: Logger
}

const elapsed = (since: number) => Math.round((performance.now() - since) * 1000) / 1000

/** Runs `fn` and reports how long it took, in ms. */
async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now()
  const value = await fn()
  return { value, ms: elapsed(started) }
}

/** degraded.vector while the index is rebuilt for new embedding settings. */
export const VECTORS_REBUILDING =
  'the index is being rebuilt for new embedding settings; keyword results until it is swapped in'

export function createSearchService(deps: SearchServiceDeps) {
  const { reader, settings } = deps
  const weights = { vector: settings.vectorWeight, text: settings.textWeight }
  /** Warn once per rebuild, not once per search. */
  let warnedRebuilding = false

  async function search(req: SearchRequest): Promise<SearchResponse> {
    const started = performance.now()
    deps.onSearch()
    const requested: SearchMode = req.mode ?? 'hybrid'
    const maxResults = req.maxResults ?? settings.maxResults
    const minScore = req.minScore ?? settings.minScore
    if (requested === 'vector' && !deps.embedder) {
      throw appError('EMBEDDING_UNAVAILABLE', 'Vector search needs an embedding provider (MNEMO_EMBED_PROVIDER)')
    }
    const limit = Math.min(settings.maxCandidates, maxResults * settings.candidateMultiplier)
    const onlySource = req.sources && new Set(req.sources).size === 1 ? req.sources[0] : undefined
    const filters = { pathPrefix: req.pathPrefix, source: onlySource, excludeMemoryFile: req.scope === 'shared' }
    const degraded: { vector?: string; rerank?: string } = {}
    const usage = { embeddingTokens: 0, rerankTokens: 0 }
    const timings = { keyword: 0, embed: 0, vector: 0, rerank: 0, total: 0 }
    const terms = requested === 'vector' ? [] : queryTerms(req.query)

    const keywordSide = timed(async (): Promise<KeywordHit[] | null> => {
      if (requested === 'vector') return null
      return terms.length === 0 ? [] : reader.keyword({ terms, limit, filters })
    })
    const vectorSide = timed(async (): Promise<VectorHit[] | null> => {
      if (requested === 'keyword' || !deps.embedder) return null
      if (!deps.vectorsReady()) {
        if (requested === 'vector') throw appError('EMBEDDING_UNAVAILABLE', VECTORS_REBUILDING)
        degraded.vector = VECTORS_REBUILDING
        if (!warnedRebuilding) deps.log.warn(VECTORS_REBUILDING)
        warnedRebuilding = true
        return null
      }
      warnedRebuilding = false
      const embedStarted = performance.now()
      let vector: Float32Array
      try {
        const out = await deps.embedder.embed(req.query)
        vector = out.vector
        usage.embeddingTokens += out.tokens
      } catch (err) {
        if (requested === 'vector') throw err
        degraded.vector = err instanceof Error ? err.message : 'embedding failed'
        deps.log.warn({ err }, 'query embedding failed; answering by keyword')
        return null
      } finally {
        timings.embed = elapsed(embedStarted)
      }
      // A query with nothing to embed (only punctuation) has no direction to search in.
      return isZeroVector(vector) ? [] : reader.vector({ vector, limit, filters })
    })
    const [keyword, vector] = await Promise.all([keywordSide, vectorSide])
    timings.keyword = keyword.ms
    timings.vector = Math.max(0, vector.ms - timings.embed)

    const keywordHits = keyword.value && withTextScores(keyword.value)
    const mode: SearchMode = keywordHits && vector.value ? 'hybrid' : vector.value ? 'vector' : 'keyword'
    let ranked: (Merged<KeywordHit | VectorHit> & { rerankScore?: number })[] = dropDuplicateRanges(
      mergeHybrid<KeywordHit | VectorHit>({ keyword: keywordHits, vector: vector.value, weights }),
    )
    let texts = new Map<number, string>()

    if (deps.reranker && req.rerank !== false && ranked.length > 0) {
      const rerankStarted = performance.now()
      texts = await reader.texts(ranked.slice(0, deps.rerank.topN).map((h) => h.id))
      const out = await applyRerank(ranked, { reranker: deps.reranker, query: req.query, texts, ...deps.rerank })
      ranked = out.hits
      usage.rerankTokens += out.tokens
      if (out.degraded) {
        degraded.rerank = out.degraded
        deps.log.warn({ err: out.error }, 'rerank failed; answering in merged order')
      }
      timings.rerank = elapsed(rerankStarted)
    }

    const top = ranked.filter((h) => h.score >= minScore).slice(0, maxResults)
    const missing = top.filter((h) => !texts.has(h.id)).map((h) => h.id)
    if (missing.length > 0) for (const [id, text] of await reader.texts(missing)) texts.set(id, text)
    const results: SearchHit[] = []
    for (const hit of top) {
      const text = texts.get(hit.id)
      // A chunk replaced by a sync between the two reads is no longer in the index.
      if (text === undefined) continue
      results.push({
        path: hit.path,
        startLine: hit.startLine,
        endLine: hit.endLine,
        snippet: buildSnippet(text, terms.length > 0 ? terms : queryTerms(req.query), settings.snippetMaxChars),
        score: roundScore(hit.score),
        textScore: roundScore(hit.textScore),
        vectorScore: roundScore(hit.vectorScore),
        ...(hit.rerankScore === undefined ? {} : { rerankScore: roundScore(hit.rerankScore) }),
        source: hit.source,
      })
    }
    timings.total = elapsed(started)
    return {
      results,
      mode,
      ...(degraded.vector || degraded.rerank ? { degraded } : {}),
      usage,
      timingsMs: timings,
    }
  }

  return { search }
}

/** Keyword hits with textScore relative to the best BM25 of the query (scores.ts). */
function withTextScores(hits: KeywordHit[]): (KeywordHit & { textScore: number })[] {
  const scores = relativeScores(hits.map((h) => h.bm25))
  return hits.map((h, i) => ({ ...h, textScore: scores[i] as number }))
}

export type SearchService = ReturnType<typeof createSearchService>
