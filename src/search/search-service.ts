/**
 * Search orchestration (SPEC §3): embed the query once, retrieve keyword and vector
 * candidates from every space the search covers (the agent's index, the team's) in
 * parallel through their index readers, merge each space's candidates (merge.ts), rank the
 * spaces' lists together by score, drop near-duplicate ranges, rerank the head
 * (rerank-step.ts), decay old day files (recency.ts, opt-in), apply minScore, take
 * maxResults (in MMR order when asked, mmr.ts), cut snippets within the answer's snippet
 * budget (snippet-budget.ts), yielding to the event loop between them. Scores are absolute
 * (scores.ts), so minScore means the same for every query. A vector or rerank stage
 * that fails degrades the answer — keyword results, `degraded` set, a warning logged —
 * unless the request asked for vector search alone.
 */
import type { Config } from '../config/config.js'
import type { RerankProvider } from '../providers/types.js'
import { isZeroVector } from '../domain/vectors.js'
import { appError } from '../shared/errors.js'
import type { Logger } from '../shared/logger.js'
import { analyseQuery, indexTokens, queryTerms } from '../text/analyzer.js'
import { dropDuplicateRanges } from './dedupe.js'
import { degradationOf, type Degradation, type DegradedCode, type DegradedStage } from './degraded.js'
import type { QueryExpansion } from './expand/query-expansion.js'
import type { IndexReader, KeywordHit, VectorHit } from '../store/index-reader.js'
import { mergeHybrid, type Merged } from './merge.js'
import type { QueryEmbedder } from './query-embedder.js'
import { applyRerank } from './rerank-step.js'
import { roundScore } from './scores.js'
import { MAX_SPACES, type Space } from '../shared/agent-id.js'
import { globalChunkId, spacePathPrefix } from './search-spaces.js'
import { mmrOrder } from './mmr.js'
import { decayFactor } from './recency.js'
import { dateRangeOf } from './date-range.js'
import type { DateRange } from '../domain/chunks.js'
import { buildSnippet } from './snippet.js'
import { createSnippetBudget } from './snippet-budget.js'
import { createTokenBudget } from './token-budget.js'
import { createSlicer } from '../shared/async.js'
import type { SearchHit, SearchMode, SearchRequest, SearchResponse } from './types.js'

/** One index a search covers. */
export type SearchTarget = {
  space: Space
  /** How this index's paths are shown in results: '' for the agent's own, `team/` for the team's. */
  pathPrefix: string
  /** Whether `scope: "shared"` leaves out this index's MEMORY.md (the agent's private memory). */
  privateMemoryFile: boolean
  reader: Pick<IndexReader, 'keyword' | 'vector' | 'texts'>
  /**
   * False while the index holds vectors of other embedding settings (until the rebuild for
   * the new ones is swapped in): it is then searched by keyword, degraded.
   */
  vectorsReady: () => boolean
  /** Called before each search (the sync worker's check for changes not yet synced). */
  onSearch: () => void
}

export type SearchServiceDeps = {
  /** Null without an embedding provider: searches run by keyword. */
  embedder: Pick<QueryEmbedder, 'embed'> | null
  reranker: Pick<RerankProvider, 'id' | 'rerank'> | null
  settings: Config['search']
  rerank: Pick<Config['rerank'], 'topN' | 'timeoutMs'>
  log: Logger
  /** Query expansion (expand/query-expansion.ts); absent: requests never expand. */
  expansion?: Pick<QueryExpansion, 'widen'>
  /** Clock for temporal decay, in ms since the epoch. */
  now?: () => number
}

type Candidate = Merged<KeywordHit | VectorHit> & { space: Space; rerankScore?: number; recency?: number }

/**
 * Most candidates MMR chooses among. Its cost grows with pool × results (each pick compares
 * every candidate left with the one picked), and each candidate's text is analysed first on
 * the main thread: 400 candidates for 100 results took 140 ms in one piece. 100 leaves every
 * request of up to 25 results (pool = 4 × maxResults) exactly as before.
 */
export const MMR_MAX_POOL = 100
/** maxResults when a request sets maxTokens and no maxResults: the budget decides (MAX_RESULTS). */
const MAX_RESULTS_BY_TOKENS = 100
/**
 * Main-thread work between yields while snippets and MMR terms are built, in ms: a search of
 * 100 results analyses 100 chunk texts (~40 ms), which should not hold up /health or another
 * agent's request in one piece.
 */
const SLICE_MS = 8

const elapsed = (since: number) => Math.round((performance.now() - since) * 1000) / 1000

/** Runs `fn` and reports how long it took, in ms. */
async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now()
  const value = await fn()
  return { value, ms: elapsed(started) }
}

/** degraded.vector while an index is rebuilt for new embedding settings. */
const VECTORS_REBUILDING =
  'the index is being rebuilt for new embedding settings; keyword results until it is swapped in'

/** The request's time range; a bad bound is a 400 (also for MCP calls, which skip the HTTP schema's checks). */
function rangeOf(req: SearchRequest): DateRange | undefined {
  try {
    return dateRangeOf(req)
  } catch (err) {
    if (err instanceof RangeError) throw appError('VALIDATION_FAILED', err.message)
    throw err
  }
}

const byScore = (a: Candidate, b: Candidate) =>
  b.score - a.score || b.textScore - a.textScore || b.vectorScore - a.vectorScore || a.id - b.id

export function createSearchService(deps: SearchServiceDeps) {
  const { settings } = deps
  const weights = { vector: settings.vectorWeight, text: settings.textWeight }
  /** Warn once per rebuild, not once per search. */
  let warnedRebuilding = false

  /** Chunk texts by global id, each asked of the index it lives in. */
  async function textsOf(targets: readonly SearchTarget[], ids: readonly number[]): Promise<Map<number, string>> {
    const out = new Map<number, string>()
    await Promise.all(
      targets.map(async (target, index) => {
        const mine = ids.filter((id) => id % MAX_SPACES === index).map((id) => (id - index) / MAX_SPACES)
        if (mine.length === 0) return
        for (const [id, text] of await target.reader.texts(mine)) out.set(globalChunkId(id, index), text)
      }),
    )
    return out
  }

  async function search(req: SearchRequest, allTargets: readonly SearchTarget[]): Promise<SearchResponse> {
    const started = performance.now()
    for (const target of allTargets) target.onSearch()
    const requested: SearchMode = req.mode ?? 'hybrid'
    // An agent that sets a token budget and no count wants as many results as the budget holds.
    const maxResults = req.maxResults ?? (req.maxTokens === undefined ? settings.maxResults : MAX_RESULTS_BY_TOKENS)
    const minScore = req.minScore ?? settings.minScore
    if (requested === 'vector' && !deps.embedder) {
      throw appError('EMBEDDING_UNAVAILABLE', 'Vector search needs an embedding provider (MNEMO_EMBED_PROVIDER)')
    }
    const limit = Math.min(settings.maxCandidates, maxResults * settings.candidateMultiplier)
    const onlySource = req.sources && new Set(req.sources).size === 1 ? req.sources[0] : undefined
    const dated = rangeOf(req)
    const targets = allTargets.map((target) => {
      const prefix = spacePathPrefix(req.pathPrefix, target.pathPrefix)
      const filters = prefix && {
        pathPrefix: prefix.pathPrefix,
        source: onlySource,
        excludeMemoryFile: req.scope === 'shared' && target.privateMemoryFile,
        dated,
        includeSuperseded: req.includeSuperseded === true,
        origins: req.origins,
      }
      return { target, filters }
    })
    const degraded: Partial<Record<DegradedStage, string>> = {}
    const degradedCodes: Partial<Record<DegradedStage, DegradedCode>> = {}
    const degrade = (stage: DegradedStage, { reason, code }: Degradation) => {
      degraded[stage] = reason
      degradedCodes[stage] = code
    }
    const usage = { embeddingTokens: 0, rerankTokens: 0 }
    const timings = { keyword: 0, embed: 0, vector: 0, rerank: 0, total: 0 }
    const { terms, names } = requested === 'vector' ? { terms: [], names: [] } : analyseQuery(req.query)

    // Ranked by keyword alone and not reranked, the results are the best keyword hits: their
    // texts come with them (index-reader.ts), and only texts beyond those are read later.
    const keywordOnly = requested === 'keyword' || !deps.embedder
    const textsWithHits = keywordOnly && !(deps.reranker && req.rerank !== false) ? maxResults : 0
    const keywordSide = timed(async (): Promise<(KeywordHit[] | null)[]> => {
      if (requested === 'vector') return targets.map(() => null)
      return Promise.all(
        targets.map(async ({ filters, target }) =>
          !filters || terms.length === 0
            ? []
            : target.reader.keyword({ terms, names, limit, filters, texts: textsWithHits }),
        ),
      )
    })
    const vectorSide = timed(async (): Promise<(VectorHit[] | null)[]> => {
      const none = targets.map(() => null)
      if (requested === 'keyword' || !deps.embedder) return none
      // An index the request's pathPrefix leaves out need not be ready.
      const ready = targets.map(({ target, filters }) => !filters || target.vectorsReady())
      if (ready.some((r) => !r)) {
        if (requested === 'vector') throw appError('EMBEDDING_UNAVAILABLE', VECTORS_REBUILDING)
        degrade('vector', { reason: VECTORS_REBUILDING, code: 'INDEX_REBUILDING' })
        if (!warnedRebuilding) deps.log.warn(VECTORS_REBUILDING)
        warnedRebuilding = true
        if (!ready.some(Boolean)) return none
      } else warnedRebuilding = false
      const embedStarted = performance.now()
      let vector: Float32Array
      try {
        const out = await deps.embedder.embed(req.query)
        vector = out.vector
        usage.embeddingTokens += out.tokens
      } catch (err) {
        if (requested === 'vector') throw err
        degrade('vector', degradationOf(err, 'embedding failed'))
        deps.log.warn({ err }, 'query embedding failed; answering by keyword')
        return none
      } finally {
        timings.embed = elapsed(embedStarted)
      }
      return Promise.all(
        targets.map(async ({ filters, target }, i) => {
          if (!ready[i]) return null
          // A query with nothing to embed (only punctuation) has no direction to search in.
          return !filters || isZeroVector(vector) ? [] : target.reader.vector({ vector, limit, filters })
        }),
      )
    })
    const [keyword, vector] = await Promise.all([keywordSide, vectorSide])
    timings.keyword = keyword.ms
    timings.vector = Math.max(0, vector.ms - timings.embed)
    const candidates = { keyword: keyword.value, vector: vector.value }
    const widened = await deps.expansion?.widen(req, { ...candidates, targets, limit, embedder: deps.embedder })
    if (widened?.degraded) degrade('expand', widened.degraded)
    usage.embeddingTokens += widened?.embeddingTokens ?? 0

    const keywordRan = keyword.value.some((hits) => hits !== null)
    const vectorRan = vector.value.some((hits) => hits !== null)
    const mode: SearchMode = keywordRan && vectorRan ? 'hybrid' : vectorRan ? 'vector' : 'keyword'
    const merged = targets.flatMap(({ target }, index): Candidate[] => {
      const keywordHits = (widened ?? candidates).keyword[index] ?? null
      return mergeHybrid<KeywordHit | VectorHit>({
        keyword: keywordHits,
        vector: (widened ?? candidates).vector[index] ?? null,
        weights,
      }).map((hit) => ({
        ...hit,
        id: globalChunkId(hit.id, index),
        path: target.pathPrefix + hit.path,
        space: target.space,
      }))
    })
    let ranked: Candidate[] = dropDuplicateRanges(merged.sort(byScore))
    let texts = new Map<number, string>()
    keyword.value.forEach((hits, index) => {
      for (const hit of hits ?? []) if (hit.text !== undefined) texts.set(globalChunkId(hit.id, index), hit.text)
    })

    if (deps.reranker && req.rerank !== false && ranked.length > 0) {
      const rerankStarted = performance.now()
      // Every result must be reranked, to be on the reranker's scale (rerank-step.ts).
      const topN = Math.max(deps.rerank.topN, maxResults)
      texts = await textsOf(
        allTargets,
        ranked.slice(0, topN).map((h) => h.id),
      )
      const out = await applyRerank(ranked, {
        reranker: deps.reranker,
        query: req.query,
        texts,
        timeoutMs: deps.rerank.timeoutMs,
        topN,
      })
      ranked = out.hits
      usage.rerankTokens += out.tokens
      if (out.degraded) {
        degrade('rerank', out.degraded)
        deps.log.warn({ err: out.error }, 'rerank failed; answering in merged order')
      }
      timings.rerank = elapsed(rerankStarted)
    }

    const halfLifeDays = req.halfLifeDays ?? settings.halfLifeDays
    if (halfLifeDays > 0) {
      const now = (deps.now ?? Date.now)()
      ranked = ranked
        .map((h) => {
          const recency = decayFactor(h.path, now, halfLifeDays)
          return { ...h, score: h.score * recency, recency }
        })
        .sort(byScore)
    }
    const passing = ranked.filter((h) => h.score >= minScore)
    // MMR picks from the candidates a plain search would fetch for this many results.
    const poolSize = Math.min(maxResults * settings.candidateMultiplier, Math.max(MMR_MAX_POOL, maxResults))
    const pool = (req.mmr ?? settings.mmr) ? passing.slice(0, poolSize) : []
    const wanted = pool.length > 0 ? pool : passing.slice(0, maxResults)
    const missing = wanted.filter((h) => !texts.has(h.id)).map((h) => h.id)
    if (missing.length > 0) for (const [id, text] of await textsOf(allTargets, missing)) texts.set(id, text)
    const slicer = createSlicer(SLICE_MS)
    const poolTerms: Set<string>[] = []
    for (const h of pool) {
      await slicer.maybeYield()
      poolTerms.push(new Set(indexTokens(texts.get(h.id) ?? '')))
    }
    const top = pool.length > 0 ? mmrOrder(pool, poolTerms, req.mmrLambda ?? settings.mmrLambda, maxResults) : wanted
    const snippetTerms = terms.length > 0 ? terms : queryTerms(req.query)
    const budget = createSnippetBudget(req.snippetBytes ?? settings.snippetBytesPerSearch)
    const tokens = createTokenBudget(req.maxTokens)
    const results: SearchHit[] = []
    for (const hit of top) {
      if (tokens.full()) break
      const text = texts.get(hit.id)
      // A chunk replaced by a sync between the two reads is no longer in the index.
      if (text === undefined) continue
      await slicer.maybeYield()
      let built = ''
      if (budget.exhausted()) budget.skip()
      else built = budget.fit(buildSnippet(text, snippetTerms, settings.snippetMaxChars))
      const snippet = tokens.fit(built, results.length === 0)
      if (snippet === null) break
      results.push({
        path: hit.path,
        startLine: hit.startLine,
        endLine: hit.endLine,
        snippet,
        score: roundScore(hit.score),
        textScore: roundScore(hit.textScore),
        vectorScore: roundScore(hit.vectorScore),
        ...(hit.rerankScore === undefined ? {} : { rerankScore: roundScore(hit.rerankScore) }),
        ...(hit.recency === undefined ? {} : { recency: roundScore(hit.recency) }),
        source: hit.source,
        space: hit.space,
        status: hit.entry?.status ?? 'active',
        observed: hit.entry?.observed ?? null,
        key: hit.entry?.key ?? null,
        origin: hit.entry?.origin ?? null,
      })
    }
    timings.total = elapsed(started)
    return {
      results,
      mode,
      ...(budget.shortened() > 0 ? { snippetsShortened: budget.shortened() } : {}),
      ...(Object.keys(degraded).length > 0 ? { degraded, degradedCodes } : {}),
      ...(results.length === 0 && passing.length === 0 && ranked[0] !== undefined
        ? { abstained: { bestScore: roundScore(ranked[0].score), minScore } }
        : {}),
      usage: { ...usage, resultTokens: tokens.used() },
      timingsMs: timings,
    }
  }

  return { search }
}

export type SearchService = ReturnType<typeof createSearchService>
