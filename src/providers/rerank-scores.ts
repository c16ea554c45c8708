/**
 * Turns a reranker's `[{index, score}]` answer into one score per document (pure). Documents
 * the reranker left out score 0. Scores outside [0, 1] (servers returning raw logits) are
 * passed through the logistic function so they can be compared with minScore.
 */
import { ProviderError } from './provider-error.js'

export function scoresByIndex(
  provider: string,
  results: readonly { index: number; score: number }[],
  count: number,
): number[] {
  const scores = new Array<number>(count).fill(0)
  for (const { index, score } of results) {
    if (!Number.isInteger(index) || index < 0 || index >= count || !Number.isFinite(score)) {
      throw new ProviderError('failed', provider, `bad rerank result (index ${index}, score ${score})`)
    }
    scores[index] = score
  }
  const raw = scores.some((s) => s < 0 || s > 1)
  return raw ? scores.map((s) => 1 / (1 + Math.exp(-s))) : scores
}
