/**
 * The answer's results from the ranked hits (SPEC §3): a snippet each within the answer's
 * snippet budget (snippet-budget.ts) and token budget (token-budget.ts), yielding to the
 * event loop between them.
 */
import type { ChunkText } from '../domain/chunks.js'
import type { Space } from '../shared/agent-id.js'
import type { createSlicer } from '../shared/async.js'
import type { KeywordHit, VectorHit } from '../store/index-reader.js'
import type { Merged } from './merge.js'
import { roundScore } from './scores.js'
import { buildSnippet } from './snippet.js'
import { createSnippetBudget } from './snippet-budget.js'
import { createTokenBudget } from './token-budget.js'
import type { SearchHit } from './types.js'

/** A hit on its way to the answer: merged, then maybe reranked and decayed. */
export type Candidate = Merged<KeywordHit | VectorHit> & { space: Space; rerankScore?: number; recency?: number }

export type ResultBudgets = {
  /** Bytes of snippets in one answer (MNEMO_SNIPPET_BYTES_PER_SEARCH, or the request's). */
  snippetBytes: number
  snippetMaxChars: number
  /** The request's maxTokens, if any. */
  maxTokens: number | undefined
}

/** One result as the API shows it. */
function toHit(hit: Candidate, snippet: string): SearchHit {
  return {
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
  }
}

/**
 * The results for `top`, in order, until the token budget is spent; snippets show
 * `terms`. A hit whose text is missing (its chunk replaced by a sync between the two reads)
 * is left out.
 */
export async function buildResults(
  top: readonly Candidate[],
  texts: ReadonlyMap<number, ChunkText>,
  terms: readonly string[],
  budgets: ResultBudgets,
  slicer: Pick<ReturnType<typeof createSlicer>, 'maybeYield'>,
) {
  const snippets = createSnippetBudget(budgets.snippetBytes)
  const tokens = createTokenBudget(budgets.maxTokens)
  const results: SearchHit[] = []
  for (const hit of top) {
    if (tokens.full()) break
    const read = texts.get(hit.id)
    if (read === undefined) continue
    await slicer.maybeYield()
    let built = ''
    if (snippets.exhausted()) snippets.skip()
    else built = snippets.fit(buildSnippet(read.text, terms, budgets.snippetMaxChars, read.bodyTerms))
    const snippet = tokens.fit(built, results.length === 0)
    if (snippet === null) break
    results.push(toHit(hit, snippet))
  }
  return { results, shortened: snippets.shortened(), tokens: tokens.used() }
}
