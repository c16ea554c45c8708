/** Small formatting for people: times, durations, scores. */

export function when(iso: string | null | undefined): string {
  if (!iso) return '—'
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString()
}

export const ms = (n: number): string => (n >= 1000 ? `${(n / 1000).toFixed(1)} s` : `${Math.round(n)} ms`)

export const score = (n: number | null | undefined): string => (n === null || n === undefined ? '—' : n.toFixed(3))
