/**
 * Hybrid merge (pure, SPEC §3 step 3): the union of keyword and vector candidates by chunk,
 * score = weighted mean of vectorScore and textScore over the signals that actually ran.
 * A side that did not run (keyword mode, no embedder, embedder down) is left out of the
 * weights instead of counting as zero, so a keyword-only answer keeps its full textScore and
 * good keyword hits still pass minScore. A chunk missing from a side that ran scores 0 there.
 */

export type Weights = { vector: number; text: number }

export type Merged<T> = T & { textScore: number; vectorScore: number; score: number }

export type MergeInput<T extends { id: number }> = {
  /** Keyword candidates with textScore, or null when the keyword side did not run. */
  keyword: (T & { textScore: number })[] | null
  /** Vector candidates with vectorScore, or null when the vector side did not run. */
  vector: (T & { vectorScore: number })[] | null
  weights: Weights
}

export function mergeHybrid<T extends { id: number }>(input: MergeInput<T>): Merged<T>[] {
  let wText = input.keyword ? input.weights.text : 0
  let wVector = input.vector ? input.weights.vector : 0
  if (wText + wVector === 0) {
    // Only sides with weight 0 ran: weigh what there is equally rather than score nothing.
    wText = input.keyword ? 1 : 0
    wVector = input.vector ? 1 : 0
  }
  const total = wText + wVector
  const byId = new Map<number, Merged<T>>()
  for (const hit of input.keyword ?? []) byId.set(hit.id, { ...hit, vectorScore: 0, score: 0 })
  for (const hit of input.vector ?? []) {
    const seen = byId.get(hit.id)
    if (seen) seen.vectorScore = hit.vectorScore
    else byId.set(hit.id, { ...hit, textScore: 0, score: 0 })
  }
  const merged = [...byId.values()]
  for (const m of merged) m.score = total === 0 ? 0 : (wText * m.textScore + wVector * m.vectorScore) / total
  return merged.sort(
    (a, b) => b.score - a.score || b.textScore - a.textScore || b.vectorScore - a.vectorScore || a.id - b.id,
  )
}
