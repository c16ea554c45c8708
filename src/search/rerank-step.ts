/**
 * Rerank step (SPEC §3 step 4): the top N merged candidates go to the reranker, whose
 * relevance score becomes each one's `score`, and they are ordered by it. Candidates past N
 * are left out: their merged scores are on another scale, and minScore must compare one
 * scale (the caller makes N at least maxResults). A slow or failing reranker never fails
 * the search: the merged order comes back with the reason, for `degraded.rerank` and a
 * warning.
 */
import { ProviderError } from '../providers/provider-error.js'
import type { RerankProvider } from '../providers/types.js'
import { withTimeout } from '../shared/async.js'
import { degradationOf, type Degradation } from './degraded.js'

export type RerankOutcome<T> = {
  hits: (T & { rerankScore?: number })[]
  tokens: number
  degraded?: Degradation
  error?: unknown
}

export async function applyRerank<T extends { id: number; score: number }>(
  hits: T[],
  opts: {
    reranker: Pick<RerankProvider, 'id' | 'rerank'>
    query: string
    texts: ReadonlyMap<number, { text: string }>
    topN: number
    timeoutMs: number
  },
): Promise<RerankOutcome<T>> {
  const head = hits.slice(0, opts.topN).filter((h) => opts.texts.has(h.id))
  if (head.length === 0) return { hits, tokens: 0 }
  try {
    const out = await withTimeout(
      opts.timeoutMs,
      (signal) =>
        opts.reranker.rerank(
          opts.query,
          head.map((h) => (opts.texts.get(h.id) as { text: string }).text),
          { topN: head.length, signal },
        ),
      () => new ProviderError('timeout', opts.reranker.id, `rerank took over ${opts.timeoutMs} ms`),
    )
    const reranked = head
      .map((h, i) => ({ ...h, rerankScore: out.scores[i] as number, score: out.scores[i] as number }))
      .sort((a, b) => b.rerankScore - a.rerankScore || a.id - b.id)
    return { hits: reranked, tokens: out.tokens }
  } catch (err) {
    return { hits, tokens: 0, degraded: degradationOf(err, 'rerank failed'), error: err }
  }
}
