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
import type { IndexReader } from '../index-reader.js'
import type { KeywordHit } from '../keyword-search.js'
import type { QueryEmbedder } from '../query-embedder.js'
import type { VectorHit } from '../vector-search.js'
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

export type Widened = CandidateLists & { degraded?: string; embeddingTokens: number; variants: Variant[] }

export function createQueryExpansion(deps: ExpansionDeps) {
  const cache = deps.cacheMaxEntries > 0 ? createLru<string, Variant[]>(deps.cacheMaxEntries) : null

  /** The query's variants, or none and why. */
  async function variantsOf(query: string): Promise<{ variants: Variant[]; degraded?: string }> {
    const key = `${deps.source.model}\u0000${query}`
    const cached = cache?.get(key)
    if (cached) return { variants: cached }
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
      return { variants: [], degraded: err instanceof Error ? err.message : 'query expansion failed' }
    }
  }

  /**
   * The candidate lists with the variants' fused in, or undefined when the request does not
   * expand (the caller keeps its lists).
   */
  async function widen(
    req: { query: string; expand?: boolean | undefined },
    ctx: CandidateLists & {
      targets: readonly ExpandTarget[]
      limit: number
      embedder: Pick<QueryEmbedder, 'embed'> | null
    },
  ): Promise<Widened | undefined> {
    if (!(req.expand ?? deps.byDefault)) return undefined
    const { variants, degraded } = await variantsOf(req.query)
    const vectorRan = ctx.embedder !== null && ctx.vector.some((hits) => hits !== null)
    const byKeyword = variants.filter((v) => v.type === 'lex' || (v.type === 'vec' && !vectorRan))
    const byVector = vectorRan ? variants.filter((v) => v.type !== 'lex') : []
    let embeddingTokens = 0
    const problems: string[] = []

    const keywordLists = await Promise.all(
      byKeyword.map(async (v) => {
        const { terms, names } = analyseQuery(v.text)
        return Promise.all(
          ctx.targets.map(({ target, filters }, i) =>
            ctx.keyword[i] === null || !filters || terms.length === 0
              ? Promise.resolve([])
              : target.reader.keyword({ terms, names, limit: ctx.limit, filters }),
          ),
        )
      }),
    )
    const vectorLists = await Promise.all(
      byVector.map(async (v) => {
        let vector: Float32Array
        try {
          const out = await (ctx.embedder as Pick<QueryEmbedder, 'embed'>).embed(v.text)
          vector = out.vector
          embeddingTokens += out.tokens
        } catch (err) {
          problems.push(`a ${v.type} variant was not embedded: ${err instanceof Error ? err.message : String(err)}`)
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
    if (problems.length > 0) deps.log.warn({ problems }, 'query expansion: variants left out')
    const reason = [degraded, ...problems].filter(Boolean).join('; ')
    const variantLists = <T>(extra: T[][][], i: number) =>
      extra.map((lists) => ({ weight: VARIANT_WEIGHT, hits: lists[i] ?? [] }))
    return {
      keyword: ctx.keyword.map((hits, i) =>
        hits === null || keywordLists.length === 0
          ? hits
          : fuseWeighted('textScore', [{ weight: 1, hits }, ...variantLists(keywordLists, i)], ctx.limit),
      ),
      vector: ctx.vector.map((hits, i) =>
        hits === null || vectorLists.length === 0
          ? hits
          : fuseWeighted('vectorScore', [{ weight: 1, hits }, ...variantLists(vectorLists, i)], ctx.limit),
      ),
      ...(reason ? { degraded: reason } : {}),
      embeddingTokens,
      variants,
    }
  }

  return { widen }
}

export type QueryExpansion = ReturnType<typeof createQueryExpansion>
