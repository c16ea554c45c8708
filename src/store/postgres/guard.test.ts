import { describe, expect, it } from 'vitest'
import { isAppError } from '../../shared/errors.js'
import { createGuard } from './guard.js'

const lostConnection = () =>
  Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })
const badQuery = () => Object.assign(new Error('syntax error at or near "SELEC"'), { code: '42601' })

/** A guard over an availability whose wait answers `comesBack`, recording what it was told. */
function setup(comesBack: boolean) {
  const told: unknown[] = []
  const guard = createGuard({ lost: (err) => void told.push(err), whenUp: async () => comesBack })
  return { guard, told }
}

/** An operation that fails with the given errors, one per call, then answers 'rows'. */
function failing(...errors: Error[]) {
  let calls = 0
  const op = async () => {
    const err = errors[calls++]
    if (err) throw err
    return 'rows'
  }
  return { op, calls: () => calls }
}

describe('the guard of database operations', () => {
  it.each([
    // [case, comes back, errors, result or error code, calls]
    ['retrying: answers', true, [], 'rows', 1],
    ['retrying: a lost connection, the database back in time: run again', true, [lostConnection()], 'rows', 2],
    ['retrying: away past the wait: 503 without a second run', false, [lostConnection()], 'INDEX_UNAVAILABLE', 1],
    [
      'retrying: lost twice: 503 after the second run',
      true,
      [lostConnection(), lostConnection()],
      'INDEX_UNAVAILABLE',
      2,
    ],
    ['retrying: a wrong query is not retried and passes unchanged', true, [badQuery()], '42601', 1],
  ] as const)('%s', async (_case, comesBack, errors, expected, calls) => {
    const { guard } = setup(comesBack)
    const f = failing(...errors)
    const outcome = await guard.retrying(f.op).catch((err: { code?: string }) => err.code)
    expect(outcome).toBe(expected)
    expect(f.calls()).toBe(calls)
  })

  it('runs once-only operations once: a lost connection is 503 at once, the cause kept and reported', async () => {
    const { guard, told } = setup(true)
    const f = failing(lostConnection())
    const err = await guard.once(f.op).catch((e: unknown) => e)
    expect(isAppError(err) && err.code).toBe('INDEX_UNAVAILABLE')
    expect((err as Error).cause).toMatchObject({ code: '57P01' })
    expect(f.calls()).toBe(1)
    expect(told).toHaveLength(1)
  })

  it('passes a wrong query through once() unchanged and tells nobody', async () => {
    const { guard, told } = setup(true)
    await expect(guard.once(failing(badQuery()).op)).rejects.toMatchObject({ code: '42601' })
    expect(told).toEqual([])
  })
})
