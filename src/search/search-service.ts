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
import { samePlace, type ChunkText } from '../domain/chunks.js'
import { isZeroVector } from '../domain/vectors.js'
import type { RerankProvider } from '../providers/types.js'
import { MAX_SPACES } from '../shared/agent-id.js'
import { createSlicer } from '../shared/async.js'
import { appError } from '../shared/errors.js'
import type { Logger } from '../shared/logger.js'
import type { KeywordHit, VectorHit } from '../store/index-reader.js'
import { queryTerms } from '../text/analyzer.js'
import { termsOf } from '../text/term-count.js'
import { dropDuplicateRanges } from './dedupe.js'
import { degradationOf, type Degradation, type DegradedCode, type DegradedStage } from './degraded.js'
import type { QueryExpansion } from './expand/query-expansion.js'
import { mergeHybrid } from './merge.js'
import { mmrOrder } from './mmr.js'
import type { QueryEmbedder } from './query-embedder.js'
import { decayFactor } from './recency.js'
import { applyRerank } from './rerank-step.js'
import { roundScore } from './scores.js'
import { planSearch, type SearchPlan, type SearchedIndex } from './search-plan.js'
import { buildResults, type Candidate } from './search-results.js'
import { globalChunkId } from './search-spaces.js'
import type { SearchMode, SearchRequest, SearchResponse } from './types.js'

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

/**
 * Most candidates MMR chooses among. Its cost grows with pool × results (each pick compares
 * every candidate left with the one picked, on the main thread; each candidate's terms were
 * analysed there too until they were read with its text): 400 candidates for 100 results
 * took 140 ms in one piece. 100 leaves every request of up to 25 results (pool = 4 ×
 * maxResults) exactly as before.
 */
export const MMR_MAX_POOL = 100
/**
 * Main-thread work between yields while snippets and MMR terms are built, in ms: a search of
 * 100 results builds 100 snippets (~40 ms where the texts are analysed: rows stored before
 * their terms were by line), which should not hold up /health or another agent's request in
 * one piece.
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

const byScore = (a: Candidate, b: Candidate) =>
  b.score - a.score || b.textScore - a.textScore || b.vectorScore - a.vectorScore || a.id - b.id

/** What one search reports besides its results: stages degraded, provider tokens, timings. */
function createReport() {
  const degraded: Partial<Record<DegradedStage, string>> = {}
  const degradedCodes: Partial<Record<DegradedStage, DegradedCode>> = {}
  return {
    degraded,
    degradedCodes,
    usage: { embeddingTokens: 0, rerankTokens: 0 },
    timings: { keyword: 0, embed: 0, vector: 0, rerank: 0, total: 0 },
    degrade(stage: DegradedStage, { reason, code }: Degradation): void {
      degraded[stage] = reason
      degradedCodes[stage] = code
    },
  }
}

type Report = ReturnType<typeof createReport>
type Slicer = ReturnType<typeof createSlicer>
/** One search as its stages see it. */
type RankContext = { req: SearchRequest; plan: SearchPlan; report: Report; allTargets: readonly SearchedIndex[] }
/** Each index's hits of one side, in the order of the plan's targets; null: the side did not run there. */
type Lists = { keyword: (KeywordHit[] | null)[]; vector: (VectorHit[] | null)[] }

/** The texts keyword hits brought with them (keywordLists), by global id. */
function textsWithHits(keyword: Lists['keyword']): Map<number, ChunkText> {
  const texts = new Map<number, ChunkText>()
  keyword.forEach((hits, index) => {
    for (const { id, text, bodyTerms } of hits ?? []) {
      if (text !== undefined && bodyTerms !== undefined) texts.set(globalChunkId(id, index), { text, bodyTerms })
    }
  })
  return texts
}

export function createSearchService(deps: SearchServiceDeps) {
  const { settings } = deps
  const weights = { vector: settings.vectorWeight, text: settings.textWeight }
  /** Warn once per rebuild, not once per search. */
  let warnedRebuilding = false

  /**
   * The texts of `hits` by global id, each asked of the index it lives in. A text read from
   * another place than its hit's is left out, as a deleted chunk's is: a rebuild swapped in
   * since the hit was found numbers its chunks anew, and that id is another chunk now.
   */
  async function textsOf(
    targets: readonly SearchedIndex[],
    hits: readonly Candidate[],
  ): Promise<Map<number, ChunkText>> {
    const out = new Map<number, ChunkText>()
    await Promise.all(
      targets.map(async (target, index) => {
        const mine = new Map(
          hits.filter((h) => h.id % MAX_SPACES === index).map((h) => [(h.id - index) / MAX_SPACES, h] as const),
        )
        if (mine.size === 0) return
        for (const [id, read] of await target.reader.texts([...mine.keys()])) {
          // A hit shows its path under its space's prefix (team/, users/<id>/).
          const hit = mine.get(id)
          if (hit && samePlace(read, hit, target.pathPrefix)) {
            out.set(globalChunkId(id, index), { text: read.text, bodyTerms: read.bodyTerms })
          }
        }
      }),
    )
    return out
  }

  /**
   * Keyword hits of every index. Ranked by keyword alone and not reranked, the results are
   * the best keyword hits: their texts come with them (index-reader.ts), and only texts
   * beyond those are read later.
   */
  function keywordLists(plan: SearchPlan, req: SearchRequest): Promise<(KeywordHit[] | null)[]> {
    const { requested, terms, names, limit } = plan
    if (requested === 'vector') return Promise.resolve(plan.targets.map(() => null))
    const keywordOnly = requested === 'keyword' || !deps.embedder
    const texts = keywordOnly && !(deps.reranker && req.rerank !== false) ? plan.maxResults : 0
    return Promise.all(
      plan.targets.map(async ({ filters, target }) =>
        !filters || terms.length === 0 ? [] : target.reader.keyword({ terms, names, limit, filters, texts }),
      ),
    )
  }

  /**
   * Vector hits of every index ready for them (null where the side does not run): the query
   * is embedded once. Without vectors the search degrades to keyword, unless it asked for
   * vectors alone.
   */
  async function vectorLists(plan: SearchPlan, req: SearchRequest, report: Report): Promise<(VectorHit[] | null)[]> {
    const { requested, targets, limit } = plan
    const none = targets.map(() => null)
    if (requested === 'keyword' || !deps.embedder) return none
    // An index the request's pathPrefix leaves out need not be ready.
    const ready = targets.map(({ target, filters }) => !filters || target.vectorsReady())
    if (ready.some((r) => !r)) {
      if (requested === 'vector') throw appError('EMBEDDING_UNAVAILABLE', VECTORS_REBUILDING)
      report.degrade('vector', { reason: VECTORS_REBUILDING, code: 'INDEX_REBUILDING' })
      if (!warnedRebuilding) deps.log.warn(VECTORS_REBUILDING)
      warnedRebuilding = true
      if (!ready.some(Boolean)) return none
    } else warnedRebuilding = false
    const embedStarted = performance.now()
    let vector: Float32Array
    try {
      const out = await deps.embedder.embed(req.query)
      vector = out.vector
      report.usage.embeddingTokens += out.tokens
    } catch (err) {
      if (requested === 'vector') throw err
      report.degrade('vector', degradationOf(err, 'embedding failed'))
      deps.log.warn({ err }, 'query embedding failed; answering by keyword')
      return none
    } finally {
      report.timings.embed = elapsed(embedStarted)
    }
    return Promise.all(
      targets.map(async ({ filters, target }, i) => {
        if (!ready[i]) return null
        // A query with nothing to embed (only punctuation) has no direction to search in.
        return !filters || isZeroVector(vector) ? [] : target.reader.vector({ vector, limit, filters })
      }),
    )
  }

  /** Both sides' lists, widened by query expansion when asked (expand/query-expansion.ts). */
  async function candidateLists(plan: SearchPlan, req: SearchRequest, report: Report) {
    const [keyword, vector] = await Promise.all([
      timed(() => keywordLists(plan, req)),
      timed(() => vectorLists(plan, req, report)),
    ])
    report.timings.keyword = keyword.ms
    report.timings.vector = Math.max(0, vector.ms - report.timings.embed)
    const found: Lists = { keyword: keyword.value, vector: vector.value }
    const { targets, limit } = plan
    const widened = await deps.expansion?.widen(req, { ...found, targets, limit, embedder: deps.embedder })
    if (widened?.degraded) report.degrade('expand', widened.degraded)
    report.usage.embeddingTokens += widened?.embeddingTokens ?? 0
    const keywordRan = found.keyword.some((hits) => hits !== null)
    const vectorRan = found.vector.some((hits) => hits !== null)
    const mode: SearchMode = keywordRan && vectorRan ? 'hybrid' : vectorRan ? 'vector' : 'keyword'
    return { found, lists: widened ?? found, mode }
  }

  /** Each index's lists merged (merge.ts), then ranked together with ids unique across them. */
  function merge(plan: SearchPlan, lists: Lists): Candidate[] {
    const merged = plan.targets.flatMap(({ target }, index): Candidate[] =>
      mergeHybrid<KeywordHit | VectorHit>({
        keyword: lists.keyword[index] ?? null,
        vector: lists.vector[index] ?? null,
        weights,
      }).map((hit) => ({
        ...hit,
        id: globalChunkId(hit.id, index),
        path: target.pathPrefix + hit.path,
        space: target.space,
      })),
    )
    return dropDuplicateRanges(merged.sort(byScore))
  }

  /** The head reranked (rerank-step.ts) with the texts it read, or the ranking as it was. */
  async function rerank(ranked: Candidate[], ctx: RankContext) {
    const { req, plan, report } = ctx
    if (!deps.reranker || req.rerank === false || ranked.length === 0) return { ranked, texts: null }
    const started = performance.now()
    // Every result must be reranked, to be on the reranker's scale (rerank-step.ts).
    const topN = Math.max(deps.rerank.topN, plan.maxResults)
    const texts = await textsOf(ctx.allTargets, ranked.slice(0, topN))
    const out = await applyRerank(ranked, {
      reranker: deps.reranker,
      query: req.query,
      texts,
      timeoutMs: deps.rerank.timeoutMs,
      topN,
    })
    report.usage.rerankTokens += out.tokens
    if (out.degraded) {
      report.degrade('rerank', out.degraded)
      deps.log.warn({ err: out.error }, 'rerank failed; answering in merged order')
    }
    report.timings.rerank = elapsed(started)
    return { ranked: out.hits, texts }
  }

  /** Old day files decayed (recency.ts), when the request or the settings ask for it. */
  function decay(ranked: Candidate[], req: SearchRequest): Candidate[] {
    const halfLifeDays = req.halfLifeDays ?? settings.halfLifeDays
    if (halfLifeDays <= 0) return ranked
    const now = (deps.now ?? Date.now)()
    return ranked
      .map((h) => {
        const recency = decayFactor(h.path, now, halfLifeDays)
        return { ...h, score: h.score * recency, recency }
      })
      .sort(byScore)
  }

  /**
   * The hits to answer with, in order: those at or above minScore, the first maxResults (in
   * MMR order when asked, from the candidates a plain search would fetch for as many), with
   * the texts of any not read yet added to `texts`.
   */
  async function pick(passing: Candidate[], texts: Map<number, ChunkText>, ctx: RankContext, slicer: Slicer) {
    const { req, plan } = ctx
    const { maxResults } = plan
    const poolSize = Math.min(maxResults * settings.candidateMultiplier, Math.max(MMR_MAX_POOL, maxResults))
    const pool = (req.mmr ?? settings.mmr) ? passing.slice(0, poolSize) : []
    const wanted = pool.length > 0 ? pool : passing.slice(0, maxResults)
    const missing = wanted.filter((h) => !texts.has(h.id))
    if (missing.length > 0) for (const [id, text] of await textsOf(ctx.allTargets, missing)) texts.set(id, text)
    if (pool.length === 0) return wanted
    const poolTerms: Set<string>[] = []
    for (const h of pool) {
      await slicer.maybeYield()
      // A chunk's body terms are its text's analysed terms (text/line-terms.ts): none analysed here.
      poolTerms.push(new Set(termsOf(texts.get(h.id)?.bodyTerms ?? '')))
    }
    return mmrOrder(pool, poolTerms, req.mmrLambda ?? settings.mmrLambda, maxResults)
  }

  async function search(req: SearchRequest, allTargets: readonly SearchedIndex[]): Promise<SearchResponse> {
    const started = performance.now()
    for (const target of allTargets) target.onSearch()
    const plan = planSearch(req, allTargets, settings)
    if (plan.requested === 'vector' && !deps.embedder) {
      throw appError('EMBEDDING_UNAVAILABLE', 'Vector search needs an embedding provider (MNEMO_EMBED_PROVIDER)')
    }
    const report = createReport()
    const ctx: RankContext = { req, plan, report, allTargets }
    const { found, lists, mode } = await candidateLists(plan, req, report)
    const reranked = await rerank(merge(plan, lists), ctx)
    const ranked = decay(reranked.ranked, req)
    const texts = reranked.texts ?? textsWithHits(found.keyword)
    const passing = ranked.filter((h) => h.score >= plan.minScore)
    const slicer = createSlicer(SLICE_MS)
    const top = await pick(passing, texts, ctx, slicer)
    const terms = plan.terms.length > 0 ? plan.terms : queryTerms(req.query)
    const budgets = {
      snippetBytes: req.snippetBytes ?? settings.snippetBytesPerSearch,
      snippetMaxChars: settings.snippetMaxChars,
      maxTokens: req.maxTokens,
    }
    const built = await buildResults(top, texts, terms, budgets, slicer)
    report.timings.total = elapsed(started)
    return {
      results: built.results,
      mode,
      ...(built.shortened > 0 ? { snippetsShortened: built.shortened } : {}),
      ...(Object.keys(report.degraded).length > 0
        ? { degraded: report.degraded, degradedCodes: report.degradedCodes }
        : {}),
      ...(built.results.length === 0 && passing.length === 0 && ranked[0] !== undefined
        ? { abstained: { bestScore: roundScore(ranked[0].score), minScore: plan.minScore } }
        : {}),
      usage: { ...report.usage, resultTokens: built.tokens },
      timingsMs: report.timings,
    }
  }

  return { search }
}

export type SearchService = ReturnType<typeof createSearchService>
