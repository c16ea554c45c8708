/**
 * Variants from an OpenAI-compatible chat model: POST {baseUrl}/chat/completions with the
 * query, answered by choices[0].message.content holding the variants (parse-variants.ts).
 * No retries: expansion sits on the search path under a time limit, and the search falls
 * back to the plain query rather than waits.
 */
import { z } from 'zod'
import { defaultHttpDeps, postJson, type HttpDeps } from '../../providers/http-json.js'
import { ProviderError } from '../../providers/provider-error.js'
import { parseVariants } from './parse-variants.js'
import { MAX_VARIANT_CHARS, type VariantSource } from './variants.js'

const PROMPT = [
  'You expand search queries for a memory search engine over notes an AI agent wrote.',
  'Answer with one JSON object and nothing else:',
  '{"lex": ["..."], "vec": ["..."], "hyde": "..."}',
  '- lex: 1 to 3 short keyword queries (other words, synonyms, spellings, identifiers) for full-text search;',
  '- vec: 1 or 2 rephrasings of the question in natural language, for semantic search;',
  `- hyde: one short passage (at most ${MAX_VARIANT_CHARS / 2} characters) a note answering the query could hold.`,
  "Write in the query's language. Keep names, identifiers, numbers and dates exactly as written.",
].join('\n')

const ChatAnswer = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable().optional() }) })).min(1),
})

export function createChatVariants(opts: {
  baseUrl: string
  apiKey: string | undefined
  model: string
  timeoutMs: number
  http?: HttpDeps
}): VariantSource {
  const url = `${opts.baseUrl.replace(/\/+$/, '')}/chat/completions`
  const headers: Record<string, string> = opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}
  return {
    model: opts.model,
    async variants(query, signal) {
      const body = {
        model: opts.model,
        temperature: 0,
        messages: [
          { role: 'system', content: PROMPT },
          { role: 'user', content: query },
        ],
      }
      const json = await postJson(
        url,
        body,
        { provider: 'expand', headers, timeoutMs: opts.timeoutMs, maxRetries: 0, signal },
        opts.http ?? defaultHttpDeps,
      )
      const answer = ChatAnswer.safeParse(json)
      if (!answer.success) throw new ProviderError('failed', 'expand', 'response is not a chat completion')
      const variants = parseVariants(answer.data.choices[0]?.message.content ?? '')
      if (variants.length === 0)
        throw new ProviderError('failed', 'expand', 'the answer holds no lex/vec/hyde variants')
      return variants
    },
  }
}
