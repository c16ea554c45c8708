/**
 * Two replicas under load while their PostgreSQL server is restarted and its backends are
 * killed (issue 30; the scenario is database-chaos.ts). Needs a real server it may restart:
 * scripts/with-postgres gives MNEMO_TEST_DATABASE_URL and MNEMO_TEST_PG_CTL, as `.ci/run`
 * does; skipped without them.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startService, type ServiceProcess } from '../helpers/service-process.js'
import { chaosFailures, runDatabaseChaos, type Replica } from './database-chaos.js'

const DATABASE_URL = process.env.MNEMO_TEST_DATABASE_URL
const PG_CTL = process.env.MNEMO_TEST_PG_CTL

const services: ServiceProcess[] = []
const dirs: string[] = []
afterEach(async () => {
  for (const s of services.splice(0)) s.kill('SIGKILL')
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

/**
 * A request waits 2 s for the database here, not 5 (MNEMO_DATABASE_WAIT_MS's default): the
 * 7 s outage below must leave seconds in which requests are refused, and with 5 s the ~2 s
 * left were sometimes spent before any request found the database away (1 run in 3 to 6
 * saw one 503 or none, where others saw 54).
 */
async function start(env: Record<string, string>): Promise<Replica> {
  const proc = startService({ ...env, MNEMO_DATABASE_WAIT_MS: '2000' }, os.tmpdir())
  services.push(proc)
  const url = await proc.ready()
  return {
    url,
    alive: () => proc.child.exitCode === null && proc.child.signalCode === null,
    async stop() {
      proc.kill('SIGTERM')
      await proc.exited
    },
  }
}

describe.skipIf(!DATABASE_URL || !PG_CTL)('two replicas while the database restarts', () => {
  it('stay up, answer 503 or succeed, are ready within 10 s of the database, and lose or double no write', async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-chaos-')))
    dirs.push(dir)
    const report = await runDatabaseChaos({
      databaseUrl: DATABASE_URL as string,
      pgCtl: PG_CTL as string,
      dir,
      start,
      clients: 6,
      faults: [
        { kind: 'restart', mode: 'fast', downSeconds: 0 },
        { kind: 'terminate' },
        { kind: 'restart', mode: 'immediate', downSeconds: 0 },
        // Longer than a request waits for the database: requests answer 503 meanwhile.
        { kind: 'restart', mode: 'immediate', downSeconds: 7 },
        { kind: 'terminate' },
      ],
      gapMs: 2500,
    })
    const failures = chaosFailures(report)
    expect(failures, JSON.stringify(report.answers)).toEqual([])
    // The faults took effect: writes were acknowledged, and the long outage refused some.
    expect(report.acknowledged.appends).toBeGreaterThan(20)
    expect(report.acknowledged.flushes).toBeGreaterThan(20)
    expect(report.answers['503 INDEX_UNAVAILABLE'] ?? 0, JSON.stringify(report)).toBeGreaterThan(0)
    expect(report.readyMs).toHaveLength(3)
    expect(report.searched).toBeGreaterThan(0)
    for (const s of services) expect(s.out() + s.err()).not.toMatch(/uncaught error|shutdown timed out/)
  }, 180_000)
})
