/**
 * Query expansion for one search (`expand: true`): the query's variants (a chat model's, or
 * the heuristic's), remembered in an LRU keyed by source and query, each run on its side —
 * `lex` by keyword, `vec` and `hyde` by vector (without vector search, `vec` by keyword and
 * `hyde` not at all: an invented answer matched word by word ranks notes by its inventions)
 * — and every index's candidate lists fused with the plain query's (fuse.ts). The search
 * then merges, dedupes and reranks them as usual. A model that fails or is slow costs the
 * search its variants, never its results: the plain query's lists, with `degraded.expand`.
 */
import type { ChunkFilters } from '../../domain/chunks.js'
import { isZeroVector } from '../../domain/vectors.js'
import { ProviderError } from '../../providers/provider-error.js'
import { withTimeout } from '../../shared/async.js'
import type { Logger } from '../../shared/logger.js'
import { createLru } from '../../shared/lru.js'
import { analyseQuery } from '../../text/analyzer.js'
import { degradationOf, type Degradation } from '../degraded.js'
import type { IndexReader, KeywordHit, VectorHit } from '../../store/index-reader.js'
import type { QueryEmbedder } from '../query-embedder.js'
import { fuseWeighted } from './fuse.js'
import { keepVariants, type Variant, type VariantSource } from './variants.js'

/**
 * Weight of a variant's scores against the plain query's (1): a chunk only a variant finds
 * enters at 0.8 of its score there, so a full match of a variant (≈ 0.76) ranks below a
 * full match of the query and above a partial one. Not tuned on the dev sets.
 */
export const VARIANT_WEIGHT = 0.8

export type ExpansionDeps = {
  source: VariantSource
  /** Time limit for the variants of one query, in ms. */
  timeoutMs: number
  /** Queries whose variants are remembered; 0 = none. */
  cacheMaxEntries: number
  /** Whether a request that does not say `expand` expands (MNEMO_SEARCH_EXPAND). */
  byDefault: boolean
  log: Logger
}

/** The indexes of one search, as search-service.ts holds them (filters null: the index is left out). */
export type ExpandTarget = {
  target: { reader: Pick<IndexReader, 'keyword' | 'vector'> }
  filters: ChunkFilters | null
}

/** The plain query's candidates per index (null: that side did not run there). */
export type CandidateLists = { keyword: (KeywordHit[] | null)[]; vector: (VectorHit[] | null)[] }

export type Widened = CandidateLists & { degraded?: Degradation; embeddingTokens: number }

type Outcome = { variants: Variant[]; degraded?: Degradation }

type WidenContext = CandidateLists & {
  targets: readonly ExpandTarget[]
  /** Candidates each search takes (the plain query's limit). */
  limit: number
  embedder: Pick<QueryEmbedder, 'embed'> | null
}

/** One variant's keyword candidates per index, where the plain query's keyword side ran. */
async function keywordCandidates(variant: Variant, ctx: WidenContext): Promise<KeywordHit[][]> {
  const { terms, names } = analyseQuery(variant.text)
  return Promise.all(
    ctx.targets.map(({ target, filters }, i) =>
      ctx.keyword[i] === null || !filters || terms.length === 0
        ? Promise.resolve([])
        : target.reader.keyword({ terms, names, limit: ctx.limit, filters }),
    ),
  )
}

/**
 * The variants' vector candidates per index, where the plain query's vector side ran; a
 * variant whose embedding fails is left out, and why is told.
 */
async function vectorCandidates(
  embedder: Pick<QueryEmbedder, 'embed'>,
  variants: readonly Variant[],
  ctx: WidenContext,
): Promise<{ lists: VectorHit[][][]; tokens: number; problems: Degradation[] }> {
  let tokens = 0
  const problems: Degradation[] = []
  const lists = await Promise.all(
    variants.map(async (v): Promise<VectorHit[][]> => {
      let vector: Float32Array
      try {
        const out = await embedder.embed(v.text)
        vector = out.vector
        tokens += out.tokens
      } catch (err) {
        const { reason, code } = degradationOf(err, String(err))
        problems.push({ reason: `a ${v.type} variant was not embedded: ${reason}`, code })
        return ctx.targets.map(() => [])
      }
      return Promise.all(
        ctx.targets.map(({ target, filters }, i) =>
          ctx.vector[i] === null || !filters || isZeroVector(vector)
            ? Promise.resolve([])
            : target.reader.vector({ vector, limit: ctx.limit, filters }),
        ),
      )
    }),
  )
  return { lists, tokens, problems }
}

export function createQueryExpansion(deps: ExpansionDeps) {
  const cache = deps.cacheMaxEntries > 0 ? createLru<string, Variant[]>(deps.cacheMaxEntries) : null
  /** Questions to the source in flight: the same query searched at once asks once. */
  const inFlight = new Map<string, Promise<Outcome>>()

  /** The query's variants (from the cache, a question in flight, or a new one). */
  function variantsOf(query: string): Promise<Outcome> {
    const key = `${deps.source.model}\u0000${query}`
    const cached = cache?.get(key)
    if (cached) return Promise.resolve({ variants: cached })
    let pending = inFlight.get(key)
    if (!pending) {
      pending = ask(key, query).finally(() => inFlight.delete(key))
      inFlight.set(key, pending)
    }
    return pending
  }

  /** Asks the source within the time limit: its variants, or none and why. */
  async function ask(key: string, query: string): Promise<Outcome> {
    try {
      const raw = await withTimeout(
        deps.timeoutMs,
        (signal) => deps.source.variants(query, signal),
        () => new ProviderError('timeout', 'expand', `no answer within ${deps.timeoutMs} ms`),
      )
      const variants = keepVariants(query, raw)
      cache?.set(key, variants)
      return { variants }
    } catch (err) {
      deps.log.warn({ err }, 'query expansion failed; searching with the plain query')
      return { variants: [], degraded: degradationOf(err, 'query expansion failed') }
    }
  }

  /**
   * The candidate lists with the variants' fused in, or undefined when the request does not
   * expand (the caller keeps its lists).
   */
  async function widen(
    req: { query: string; expand?: boolean | undefined },
    ctx: WidenContext,
  ): Promise<Widened | undefined> {
    if (!(req.expand ?? deps.byDefault)) return undefined
    const { variants, degraded } = await variantsOf(req.query)
    // Vector variants need the vector side to have run for the plain query somewhere.
    const embedder = ctx.vector.some((hits) => hits !== null) ? ctx.embedder : null
    const byKeyword = variants.filter((v) => v.type === 'lex' || (v.type === 'vec' && !embedder))
    const byVector = embedder ? variants.filter((v) => v.type !== 'lex') : []
    const [keywordLists, vectors] = await Promise.all([
      Promise.all(byKeyword.map((v) => keywordCandidates(v, ctx))),
      embedder ? vectorCandidates(embedder, byVector, ctx) : { lists: [], tokens: 0, problems: [] },
    ])
    const problems = vectors.problems.map((p) => p.reason)
    if (problems.length > 0) deps.log.warn({ problems }, 'query expansion: variants left out')
    // Every failure's reason; the code of the first (the variants' source's, else the first variant's embedding's).
    const failures = degraded ? [degraded, ...vectors.problems] : vectors.problems
    const variantLists = <T>(extra: T[][][], i: number) =>
      extra.map((lists) => ({ weight: VARIANT_WEIGHT, hits: lists[i] ?? [] }))
    return {
      keyword: ctx.keyword.map((hits, i) =>
        hits === null || keywordLists.length === 0
          ? hits
          : fuseWeighted('textScore', [{ weight: 1, hits }, ...variantLists(keywordLists, i)], ctx.limit),
      ),
      vector: ctx.vector.map((hits, i) =>
        hits === null || vectors.lists.length === 0
          ? hits
          : fuseWeighted('vectorScore', [{ weight: 1, hits }, ...variantLists(vectors.lists, i)], ctx.limit),
      ),
      ...(failures[0] && { degraded: { reason: failures.map((f) => f.reason).join('; '), code: failures[0].code } }),
      embeddingTokens: vectors.tokens,
    }
  }

  return { widen }
}

export type QueryExpansion = ReturnType<typeof createQueryExpansion>
