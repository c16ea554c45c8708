/**
 * Drops near-duplicate hits (pure): a hit whose line range is mostly (more than half of
 * the shorter range) inside a better hit of the same file adds nothing for the reader,
 * e.g. two pieces of one long line. Ordinary chunk overlap (~20%) keeps both hits.
 */
export type LineRange = { path: string; startLine: number; endLine: number }

/** Share of the shorter range that must overlap for a hit to count as a duplicate. */
const DUPLICATE_OVERLAP = 0.5

function overlapShare(a: LineRange, b: LineRange): number {
  const lo = Math.max(a.startLine, b.startLine)
  const hi = Math.min(a.endLine, b.endLine)
  if (hi < lo) return 0
  const shorter = Math.min(a.endLine - a.startLine, b.endLine - b.startLine) + 1
  return (hi - lo + 1) / shorter
}

/** Keeps hits in order, skipping each one that duplicates an earlier kept hit. */
export function dropDuplicateRanges<T extends LineRange>(hits: readonly T[]): T[] {
  const kept: T[] = []
  for (const hit of hits) {
    const dup = kept.some((k) => k.path === hit.path && overlapShare(k, hit) > DUPLICATE_OVERLAP)
    if (!dup) kept.push(hit)
  }
  return kept
}
