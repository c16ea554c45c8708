/**
 * The fault suite on PostgreSQL (issue 30; `npm run stress -- --only faults --engine
 * postgres`, under scripts/with-postgres): two replicas of the built service on one server
 * and one workspace while the server is restarted `-m fast` and `-m immediate`, held down
 * past the time requests wait for it, and its backends are killed (the scenario and what
 * must hold: test/replicas/database-chaos.ts). Prints a table; returns whether all held.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { chaosFailures, runDatabaseChaos, type Fault } from '../test/replicas/database-chaos.js'
import { startServer } from './server-process.js'
import { median, percentile } from './stats.js'

export type DatabaseFaultOptions = {
  /** Rounds of the fault sequence (ROUND). */
  rounds: number
  clients: number
  /** Seconds of load before the first fault, between two, and after the last. */
  gapSeconds: number
}

/** One round: each kind of fault once, the long outage outlasting MNEMO_DATABASE_WAIT_MS (5 s). */
const ROUND: Fault[] = [
  { kind: 'restart', mode: 'fast', downSeconds: 0 },
  { kind: 'terminate' },
  { kind: 'restart', mode: 'immediate', downSeconds: 0 },
  { kind: 'restart', mode: 'immediate', downSeconds: 8 },
]

export async function runDatabaseFaults(opts: DatabaseFaultOptions): Promise<boolean> {
  const databaseUrl = process.env.MNEMO_TEST_DATABASE_URL
  const pgCtl = process.env.MNEMO_TEST_PG_CTL
  if (!databaseUrl || !pgCtl) {
    throw new Error(
      '--engine postgres needs MNEMO_TEST_DATABASE_URL and MNEMO_TEST_PG_CTL: run under scripts/with-postgres',
    )
  }
  // Its own folder, not the stress run's (removed at its end): kept when something failed.
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-database-faults-')))
  let logs = 0
  const report = await runDatabaseChaos({
    databaseUrl,
    pgCtl,
    dir,
    clients: opts.clients,
    faults: Array.from({ length: opts.rounds }, () => ROUND).flat(),
    gapMs: opts.gapSeconds * 1000,
    log: (line) => process.stdout.write(`  ${line}\n`),
    async start(env) {
      // Each replica's log in the run's folder, for a look when something did not hold.
      const logFd = fs.openSync(path.join(dir, `replica-${logs++}.log`), 'w')
      const server = await startServer({ ...env, MNEMO_LOG_LEVEL: 'info' }, { logFd })
      return { url: server.baseUrl, alive: server.alive, stop: () => server.stop() }
    },
  })
  const failures = chaosFailures(report)
  const ready = report.readyMs.filter((ms): ms is number => ms !== null)
  const answers = Object.entries(report.answers)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${k}: ${n}`)
    .join(', ')
  const rows: [string, string, string][] = [
    ['faults (restarts fast / immediate / held down, backends killed)', `${opts.rounds} rounds of 4`, ''],
    ['requests, by answer', `${report.requests} (${answers})`, 'only 2xx and 503 INDEX_UNAVAILABLE'],
    ['replicas that exited', String(report.exits), '0'],
    [
      '/ready 200 on both after the server answers: median / max',
      `${median(ready).toFixed(0)} / ${percentile(ready, 100).toFixed(0)} ms (${ready.length} of ${report.readyMs.length})`,
      '≤ 10,000 ms',
    ],
    [
      'acknowledged appends / flushes / files',
      `${report.acknowledged.appends} / ${report.acknowledged.flushes} / ${report.acknowledged.files}`,
      '',
    ],
    ['acknowledged writes lost / twice', `${report.lost.length} / ${report.duplicated.length}`, '0 / 0'],
    ['writes answered 503 found on disk', `${report.refusedPresent.length} of ${report.refused}`, '0'],
    ['files whose index differs from the disk after catch-up', String(report.unindexed.length), '0'],
    ['acknowledged lines not found by search', `${report.notFound.length} of ${report.searched}`, '0'],
  ]
  process.stdout.write('\n| measure | value | must be |\n|---|---|---|\n')
  for (const [a, b, c] of rows) process.stdout.write(`| ${a} | ${b} | ${c} |\n`)
  for (const f of failures) process.stdout.write(`FAILED: ${f}\n`)
  if (failures.length === 0) fs.rmSync(dir, { recursive: true, force: true })
  else process.stdout.write(`replica logs kept in ${dir}\n`)
  return failures.length === 0
}
