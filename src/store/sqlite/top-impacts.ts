/**
 * One term's impact list while it is built or refreshed (pure): the best `keep` postings
 * seen, by impact (store/impact.ts), and a floor that every posting seen but not kept is at
 * most. A min-heap: a posting better than the worst kept takes its place.
 */

export type Posting = { id: number; impact: number }

export function createTopImpacts(keep: number, start: { floor: number; postings: readonly Posting[] }) {
  const heap: Posting[] = []
  let floor = start.floor

  const below = (i: number, j: number) => (heap[i] as Posting).impact < (heap[j] as Posting).impact
  const swap = (i: number, j: number) => {
    const t = heap[i] as Posting
    heap[i] = heap[j] as Posting
    heap[j] = t
  }
  function up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!below(i, parent)) return
      swap(i, parent)
      i = parent
    }
  }
  function down(i: number): void {
    for (;;) {
      const l = 2 * i + 1
      const r = l + 1
      let least = i
      if (l < heap.length && below(l, least)) least = l
      if (r < heap.length && below(r, least)) least = r
      if (least === i) return
      swap(i, least)
      i = least
    }
  }

  /** Offers a posting: kept when there is room or it beats the worst kept (which then leaves). */
  function add(id: number, impact: number): void {
    if (heap.length < keep) {
      heap.push({ id, impact })
      up(heap.length - 1)
      return
    }
    const worst = heap[0] as Posting
    if (impact <= worst.impact) {
      floor = Math.max(floor, impact)
      return
    }
    floor = Math.max(floor, worst.impact)
    heap[0] = { id, impact }
    down(0)
  }

  for (const p of start.postings) add(p.id, p.impact)

  return {
    add,
    /** What the list holds: every posting seen and not kept has an impact of at most `floor`. */
    result: () => ({ floor, postings: [...heap].sort((a, b) => b.impact - a.impact || a.id - b.id) }),
  }
}

export type TopImpacts = ReturnType<typeof createTopImpacts>
