/**
 * Search latency over time (uPlot on a canvas), with its median and 95th percentile as text
 * for those who cannot see the chart.
 */
import { useEffect, useRef } from 'preact/hooks'
import uPlot from 'uplot'
import type { Schemas } from '../api.js'
import { ms } from '../format.js'

const HEIGHT = 220

/** `since`: the start of the period shown, in ms since the epoch (the chart runs from it to now). */
export function LatencyChart({ searches, since }: { searches: Schemas['LoggedSearch'][]; since: number }) {
  const box = useRef<HTMLDivElement>(null)
  const ordered = [...searches].sort((a, b) => a.time.localeCompare(b.time))
  useEffect(() => {
    const el = box.current
    if (!el || ordered.length === 0) return
    const data: uPlot.AlignedData = [ordered.map((s) => Date.parse(s.time) / 1000), ordered.map((s) => s.latencyMs)]
    const plot = new uPlot(
      {
        width: Math.max(280, el.clientWidth),
        height: HEIGHT,
        series: [{}, { label: 'latency (ms)', stroke: '#2f6fdb', width: 1.5, points: { show: true, size: 4 } }],
        scales: {
          x: { time: true, range: () => [since / 1000, Date.now() / 1000] },
          y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] },
        },
        axes: [{}, { label: 'ms' }],
        legend: { show: false },
      },
      data,
      el,
    )
    return () => plot.destroy()
  }, [searches, since])
  const sorted = ordered.map((s) => s.latencyMs).sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0
  return (
    <figure class="chart">
      <div ref={box} role="img" aria-label="Search latency over time" />
      <figcaption>
        {sorted.length === 0
          ? 'No searches in this period.'
          : `Latency of ${sorted.length} searches: median ${ms(at(0.5))}, 95th percentile ${ms(at(0.95))}.`}
      </figcaption>
    </figure>
  )
}
