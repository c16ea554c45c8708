/**
 * The fairness suite (issue 16): each phase of phases.ts `runs` times on a fresh service;
 * prints one row per phase with medians and the worst run, against the targets: /health
 * p99 and worst answer ≤ 250 ms, peak RSS ≤ 800 MB and back within 20 % of the start a
 * while after, no 5xx, no acknowledged write lost, and the well-behaved agent's search p99
 * at most 5× its idle p99. Returns whether every target held.
 */
import { fmt, median } from '../stats.js'
import { PHASES } from './phases.js'
import { runPhase, type PhaseResult } from './run-phase.js'

export type FairnessOptions = {
  tmp: string
  runs: number
  /** Phases to run (names from phases.ts); all by default. */
  only?: readonly string[] | undefined
  idleSec: number
  /** Seconds after an attack before "RSS after" is read. */
  settleSec: number
}

const TARGETS = { healthMs: 250, peakRssMb: 800, rssBackWithin: 0.2, searchRatio: 5 }

function row(results: PhaseResult[]): { cells: string[]; ok: boolean } {
  const m = (pick: (r: PhaseResult) => number) => median(results.map(pick))
  const worst = (pick: (r: PhaseResult) => number) => Math.max(...results.map(pick))
  const ratio = (r: PhaseResult) => r.searchP99Ms / r.idleSearchP99Ms
  const back = (r: PhaseResult) => r.rssAfterMb / r.rssStartMb - 1
  const ok =
    m((r) => r.healthP99Ms) <= TARGETS.healthMs &&
    m((r) => r.healthMaxMs) <= TARGETS.healthMs &&
    m((r) => r.rssPeakMb) <= TARGETS.peakRssMb &&
    m(back) <= TARGETS.rssBackWithin &&
    worst((r) => r.fivexx) === 0 &&
    worst((r) => r.lost) === 0 &&
    m(ratio) <= TARGETS.searchRatio
  const cells = [
    results[0]?.name ?? '',
    `${fmt(m((r) => r.healthP99Ms))} / ${fmt(m((r) => r.healthMaxMs))} ms (worst run ${fmt(worst((r) => r.healthMaxMs))})`,
    `${fmt(m((r) => r.rssStartMb))} → ${fmt(m((r) => r.rssPeakMb))} → ${fmt(m((r) => r.rssAfterMb))} MB`,
    String(worst((r) => r.fivexx)),
    String(worst((r) => r.lost)),
    `${fmt(m((r) => r.idleSearchP99Ms))} → ${fmt(m((r) => r.searchP99Ms))} ms (${fmt(m(ratio))}×)`,
    results.map((r) => r.outcome).join('; '),
  ]
  return { cells, ok }
}

export async function runFairness(opts: FairnessOptions): Promise<boolean> {
  const phases = PHASES.filter((p) => !opts.only || opts.only.includes(p.name))
  const header = [
    'phase',
    '/health p99 / worst',
    'RSS start → peak → after',
    '5xx',
    'lost',
    "alice's search p99 idle → during",
    'what the attack got (each run)',
  ]
  process.stdout.write(`\n| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|\n`)
  let allOk = true
  for (const phase of phases) {
    const results: PhaseResult[] = []
    for (let run = 0; run < opts.runs; run++) {
      results.push(await runPhase(phase, { tmp: opts.tmp, idleSec: opts.idleSec, settleSec: opts.settleSec }))
    }
    const { cells, ok } = row(results)
    allOk &&= ok
    process.stdout.write(`| ${cells.join(' | ')}${ok ? '' : ' **(target missed)**'} |\n`)
  }
  return allOk
}
