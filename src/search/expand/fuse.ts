/**
 * Fusion of the candidate lists of a query and its expansion variants (pure). Weighted
 * maximum on the absolute scores (scores.ts): a chunk scores the highest of
 * weight × score over the lists that returned it, the original query's list at weight 1 and
 * every variant's below it. So a chunk never scores less than the plain query gave it
 * (expansion can only add), a chunk only a variant finds comes in discounted, and a score
 * keeps its meaning for minScore. Reciprocal rank fusion (QMD's choice) was not used: it
 * replaces scores by ranks, so minScore could no longer say "nothing in memory is about this".
 */

/** One retrieval's candidates, best first, and the weight its scores count at, in (0, 1]. */
export type FuseList<T> = { weight: number; hits: readonly T[] }

type ScoreKey = 'textScore' | 'vectorScore'

/**
 * The union of `lists` by chunk id, each chunk with its best weighted `key` score (the hit
 * object of the list that gave it), best first (ties by id), at most `limit`.
 */
export function fuseWeighted<K extends ScoreKey, T extends { id: number } & Record<K, number>>(
  key: K,
  lists: readonly FuseList<T>[],
  limit: number,
): T[] {
  const best = new Map<number, T>()
  for (const { weight, hits } of lists) {
    for (const hit of hits) {
      const score = weight * hit[key]
      const seen = best.get(hit.id)
      if (!seen || score > seen[key]) best.set(hit.id, { ...hit, [key]: score })
    }
  }
  return [...best.values()].sort((a, b) => b[key] - a[key] || a.id - b.id).slice(0, limit)
}
