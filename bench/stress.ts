/**
 * npm run stress: the robustness suites, not part of npm test, against the built service in
 * its own process.
 * - faults (issue 9, bench/faults.ts): 16 clients while a folder is swapped for a symlink, a
 *   hard link sits in memory/ and the service is killed and restarted; then RSS growth.
 *   With `--engine postgres` (issue 30, bench/database-faults.ts; under scripts/with-postgres):
 *   two replicas on one PostgreSQL server while it is restarted and its backends killed,
 *   `--kills` rounds of four faults, `--gap` seconds apart, `--clients` clients (default 8).
 * - fairness (issue 16, bench/fairness/): one agent attacks (huge files, MCP floods, huge
 *   bodies, thousands of agents) while /health is probed and a well-behaved agent works.
 *
 *   npm run stress -- [--only faults,fairness] [--kill-phase 30] [--steady 60] [--kills 3]
 *                     [--clients 16] [--runs 3] [--phases cjk-one,bodies,…] [--settle 60]
 *                     [--engine sqlite|postgres] [--gap 5]
 */
import { execSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { runFairness } from './fairness/fairness.js'
import { runDatabaseFaults } from './database-faults.js'
import { runFaults } from './faults.js'

const { values } = parseArgs({
  options: {
    only: { type: 'string', default: 'faults,fairness' },
    'kill-phase': { type: 'string', default: '30' },
    steady: { type: 'string', default: '60' },
    kills: { type: 'string', default: '3' },
    clients: { type: 'string' },
    engine: { type: 'string', default: 'sqlite' },
    gap: { type: 'string', default: '5' },
    'warm-up': { type: 'string', default: '15' },
    runs: { type: 'string', default: '3' },
    phases: { type: 'string' },
    idle: { type: 'string', default: '5' },
    settle: { type: 'string', default: '60' },
  },
})

if (values.engine !== 'sqlite' && values.engine !== 'postgres')
  throw new Error(`--engine: sqlite or postgres, not ${values.engine}`)
execSync('npm run build', { stdio: 'inherit' })
const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-stress-')))
const only = new Set(values.only.split(','))
let ok = true
try {
  if (only.has('faults') && values.engine === 'postgres') {
    ok &&= await runDatabaseFaults({
      rounds: Number(values.kills),
      clients: Number(values.clients ?? 8),
      gapSeconds: Number(values.gap),
    })
  } else if (only.has('faults')) {
    ok &&= await runFaults({
      tmp,
      killPhase: Number(values['kill-phase']),
      steady: Number(values.steady),
      kills: Number(values.kills),
      clients: Number(values.clients ?? 16),
      warmUp: Number(values['warm-up']),
    })
  }
  if (only.has('fairness')) {
    ok &&= await runFairness({
      tmp,
      runs: Number(values.runs),
      only: values.phases?.split(','),
      idleSec: Number(values.idle),
      settleSec: Number(values.settle),
    })
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true })
}
process.exitCode = ok ? 0 : 1
