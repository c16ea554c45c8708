/** Percentiles and medians for benchmark samples (pure). */

/** The p-th percentile (0–100) by nearest rank; NaN for no samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return NaN
  const sorted = [...samples].sort((a, b) => a - b)
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[rank] as number
}

export const median = (samples: readonly number[]) => percentile(samples, 50)

/** Rounds for tables: 2 decimals under 10, 1 under 100, integers above. */
export function fmt(n: number): string {
  if (!Number.isFinite(n)) return 'n/a'
  return n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : Math.round(n).toString()
}
