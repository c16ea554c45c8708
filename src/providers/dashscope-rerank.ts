/**
 * DashScope (Alibaba Cloud Bailian) text rerank, e.g. gte-rerank, in its native shape:
 * {model, input: {query, documents}, parameters: {top_n, return_documents}} answered by
 * {output: {results: [{index, relevance_score}]}, usage: {total_tokens}}.
 */
import { z } from 'zod'
import { defaultHttpDeps, postJson, type HttpDeps } from './http-json.js'
import { ProviderError } from './provider-error.js'
import { scoresByIndex } from './rerank-scores.js'
import type { RerankProvider } from './types.js'

export const DASHSCOPE_RERANK_URL = 'https://dashscope.aliyuncs.com/api/v1/services/rerank/text-rerank/text-rerank'
export const DASHSCOPE_DEFAULT_MODEL = 'gte-rerank'

const Response = z.object({
  output: z.object({ results: z.array(z.object({ index: z.number(), relevance_score: z.number() })) }),
  usage: z.object({ total_tokens: z.number().optional() }).optional(),
})

export function createDashscopeRerank(opts: {
  /** Full endpoint URL (default DASHSCOPE_RERANK_URL). */
  url: string | undefined
  apiKey: string
  model: string | undefined
  timeoutMs: number
  http?: HttpDeps
}): RerankProvider {
  const model = opts.model ?? DASHSCOPE_DEFAULT_MODEL
  return {
    id: 'dashscope',
    model,
    async rerank(query, documents, { topN, signal }) {
      const body = { model, input: { query, documents }, parameters: { top_n: topN, return_documents: false } }
      const headers = { authorization: `Bearer ${opts.apiKey}` }
      const json = await postJson(
        opts.url ?? DASHSCOPE_RERANK_URL,
        body,
        { provider: 'dashscope', headers, timeoutMs: opts.timeoutMs, maxRetries: 0, signal },
        opts.http ?? defaultHttpDeps,
      )
      const parsed = Response.safeParse(json)
      if (!parsed.success) throw new ProviderError('failed', 'dashscope', 'response has no output.results')
      const results = parsed.data.output.results.map((r) => ({ index: r.index, score: r.relevance_score }))
      return {
        scores: scoresByIndex('dashscope', results, documents.length),
        tokens: parsed.data.usage?.total_tokens ?? 0,
      }
    },
  }
}
