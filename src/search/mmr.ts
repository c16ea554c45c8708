/**
 * Maximal marginal relevance (pure, opt-in; Carbonell & Goldstein 1998): picks results one
 * at a time, each maximising λ·score − (1 − λ)·(its greatest similarity to a result already
 * picked), so five near-copies of one note do not crowd out the second-best topic. λ = 1 is
 * plain score order; the reference system's default is 0.7. A result keeps its own score,
 * so the order may differ from score order.
 */

/** Jaccard similarity of two term sets, in [0, 1]. */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0
  let shared = 0
  for (const t of a) if (b.has(t)) shared++
  return shared / (a.size + b.size - shared)
}

/** The first `k` items in MMR order; `items` best first, `terms` each item's term set. */
export function mmrOrder<T extends { score: number }>(
  items: readonly T[],
  terms: readonly ReadonlySet<string>[],
  lambda: number,
  k: number,
): T[] {
  const left = items.map((_, i) => i)
  /** Each remaining item's greatest similarity to the picked ones. */
  const maxSim = items.map(() => 0)
  const picked: T[] = []
  while (picked.length < k && left.length > 0) {
    let bestAt = 0
    let best = -Infinity
    left.forEach((i, at) => {
      const value = lambda * (items[i] as T).score - (1 - lambda) * (maxSim[i] as number)
      if (value > best) {
        best = value
        bestAt = at
      }
    })
    const [chosen] = left.splice(bestAt, 1) as [number]
    picked.push(items[chosen] as T)
    for (const i of left) maxSim[i] = Math.max(maxSim[i] as number, jaccard(terms[i]!, terms[chosen]!))
  }
  return picked
}
