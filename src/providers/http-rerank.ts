/**
 * Rerank over HTTP in the Cohere/Jina/TEI style: POST {baseUrl}/rerank with
 * {model, query, documents, top_n}, answered by {results: [{index, relevance_score}]}
 * (TEI's bare [{index, score}] list is accepted too). No retries: a reranker sits on the
 * search path under a time limit, and the search degrades rather than waits.
 */
import { z } from 'zod'
import { defaultHttpDeps, postJson, type HttpDeps } from './http-json.js'
import { ProviderError } from './provider-error.js'
import { scoresByIndex } from './rerank-scores.js'
import type { RerankProvider } from './types.js'

const CohereStyle = z.object({
  results: z.array(z.object({ index: z.number(), relevance_score: z.number() })),
  usage: z.object({ total_tokens: z.number().optional() }).optional(),
})
const TeiStyle = z.array(z.object({ index: z.number(), score: z.number() }))

export function createHttpRerank(opts: {
  baseUrl: string
  apiKey: string | undefined
  model: string | undefined
  timeoutMs: number
  http?: HttpDeps
}): RerankProvider {
  const url = `${opts.baseUrl.replace(/\/+$/, '')}/rerank`
  const headers: Record<string, string> = opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}
  return {
    id: 'http',
    model: opts.model ?? 'default',
    async rerank(query, documents, { topN, signal }) {
      const body = { ...(opts.model ? { model: opts.model } : {}), query, documents, top_n: topN }
      const json = await postJson(
        url,
        body,
        { provider: 'rerank', headers, timeoutMs: opts.timeoutMs, maxRetries: 0, signal },
        opts.http ?? defaultHttpDeps,
      )
      const cohere = CohereStyle.safeParse(json)
      if (cohere.success) {
        const results = cohere.data.results.map((r) => ({ index: r.index, score: r.relevance_score }))
        return {
          scores: scoresByIndex('rerank', results, documents.length),
          tokens: cohere.data.usage?.total_tokens ?? 0,
        }
      }
      const tei = TeiStyle.safeParse(json)
      if (tei.success) return { scores: scoresByIndex('rerank', tei.data, documents.length), tokens: 0 }
      throw new ProviderError('failed', 'rerank', 'response is not a rerank result list')
    },
  }
}
