import { describe, expect, it } from 'vitest'
import { createLogger } from '../../shared/logger.js'
import { tablesOf } from './database.js'
import { ANALYZE_MIN_ROWS, createPlannerStats } from './planner-stats.js'

/** A pool that records its statements and finishes each when told to. */
function fakePool(opts: { fail?: boolean } = {}) {
  const statements: string[] = []
  const pending: (() => void)[] = []
  return {
    statements,
    finishAll: () => pending.splice(0).forEach((finish) => finish()),
    query: (sql: string) => {
      statements.push(sql)
      return new Promise((resolve, reject) =>
        pending.push(() => (opts.fail ? reject(new Error('permission denied')) : resolve({ rows: [] }))),
      )
    },
  }
}

const setup = (opts: { fail?: boolean } = {}) => {
  const pool = fakePool(opts)
  const logs: string[] = []
  const log = createLogger({ level: 'warn' }, { write: (line) => void logs.push(line) })
  const stats = createPlannerStats({ pool: pool as never, t: tablesOf('mnemo'), log })
  return { pool, logs, stats }
}

describe('planner statistics after bulk writes', () => {
  it('analyses the chunk and term tables once enough rows were inserted', async () => {
    const { pool, stats } = setup()
    stats.inserted(ANALYZE_MIN_ROWS - 1)
    expect(pool.statements).toEqual([])
    stats.inserted(1)
    expect(pool.statements).toEqual(['ANALYZE "mnemo"."chunks", "mnemo"."terms"'])
    pool.finishAll()
    await stats.settled()
  })

  it('runs one ANALYZE at a time and counts what was inserted meanwhile towards the next', async () => {
    const { pool, stats } = setup()
    stats.inserted(ANALYZE_MIN_ROWS)
    stats.inserted(ANALYZE_MIN_ROWS)
    expect(pool.statements).toHaveLength(1)
    pool.finishAll()
    await stats.settled()
    stats.inserted(0)
    expect(pool.statements).toHaveLength(2)
    pool.finishAll()
    await stats.settled()
  })

  it('waits for a share of the rows known before analysing a big table again', async () => {
    const { pool, stats } = setup()
    stats.inserted(20_000)
    pool.finishAll()
    await stats.settled()
    // As many rows again: 19,999 more are not enough, the 20,000th is.
    stats.inserted(19_999)
    expect(pool.statements).toHaveLength(1)
    stats.inserted(1)
    expect(pool.statements).toHaveLength(2)
    pool.finishAll()
    await stats.settled()
  })

  it('logs a failed ANALYZE and tries again later', async () => {
    const { pool, logs, stats } = setup({ fail: true })
    stats.inserted(ANALYZE_MIN_ROWS)
    pool.finishAll()
    await stats.settled()
    expect(logs.join('')).toContain('could not ANALYZE')
    stats.inserted(ANALYZE_MIN_ROWS)
    expect(pool.statements).toHaveLength(2)
    pool.finishAll()
    await stats.settled()
  })
})
