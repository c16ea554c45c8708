import { describe, expect, it } from 'vitest'
import { createLogger } from '../../shared/logger.js'
import { createAvailability, PROBE_MS } from './availability.js'

const WAIT_MS = 5000

const tick = () => new Promise((resolve) => setImmediate(resolve))

/** A tracker whose probe fails until `back()` and whose clock the test moves. */
function setup() {
  let up = false
  let clock = 1_000_000
  const probes: number[] = []
  const pauses: number[] = []
  const logs: string[] = []
  const availability = createAvailability({
    probe: async () => {
      probes.push(clock)
      if (!up) throw new Error('connect ECONNREFUSED')
    },
    log: createLogger({ level: 'info' }, { write: (line) => void logs.push(line) }),
    now: () => clock,
    waitMs: WAIT_MS,
    pause: async (ms) => {
      pauses.push(ms)
      await tick()
    },
  })
  return {
    availability,
    probes,
    pauses,
    logs,
    back: () => (up = true),
    advance: (ms: number) => (clock += ms),
  }
}

describe('database availability', () => {
  it('probes once however often it is told the database went away, with backoff, until it answers', async () => {
    const s = setup()
    expect(s.availability.isUp()).toBe(true)
    for (let i = 0; i < 5; i++) s.availability.lost(new Error('Connection terminated unexpectedly'))
    expect(s.availability.isUp()).toBe(false)
    for (let i = 0; i < 8; i++) await tick()
    // One loop: each probe after a pause, the pauses doubling up to the longest.
    expect(s.pauses.slice(0, 5)).toEqual([
      PROBE_MS.first,
      PROBE_MS.first * 2,
      PROBE_MS.first * 4,
      PROBE_MS.first * 8,
      PROBE_MS.max,
    ])
    expect(s.probes.length).toBe(s.pauses.length)
    s.back()
    for (let i = 0; i < 3; i++) await tick()
    expect(s.availability.isUp()).toBe(true)
    const probes = s.probes.length
    for (let i = 0; i < 3; i++) await tick()
    expect(s.probes.length).toBe(probes)
    expect(s.logs.join('')).toContain('out of reach')
    expect(s.logs.join('')).toContain('answers again')
  })

  it('wakes waiters with true and tells each listener once when the database answers again', async () => {
    const s = setup()
    let heard = 0
    const stop = s.availability.onRecovered(() => heard++)
    await expect(s.availability.whenUp()).resolves.toBe(true)
    s.availability.lost(new Error('terminating connection due to administrator command'))
    const waiting = s.availability.whenUp()
    await tick()
    s.back()
    await expect(waiting).resolves.toBe(true)
    expect(heard).toBe(1)
    stop()
    s.availability.lost(new Error('again'))
    for (let i = 0; i < 3; i++) await tick()
    expect(s.availability.isUp()).toBe(true)
    expect(heard).toBe(1)
  })

  it('lets a request wait only until waitMs after the database was found away', async () => {
    const s = setup()
    s.availability.lost(new Error('connect ECONNREFUSED'))
    s.advance(WAIT_MS - 20)
    // 20 ms left: the wait ends with false while the database stays away.
    await expect(s.availability.whenUp()).resolves.toBe(false)
    s.advance(20)
    // Past it: no wait at all.
    const started = performance.now()
    await expect(s.availability.whenUp()).resolves.toBe(false)
    expect(performance.now() - started).toBeLessThan(WAIT_MS)
    expect(s.availability.lastError()).toContain('ECONNREFUSED')
  })

  it('stops probing and wakes every waiter with false when closed', async () => {
    const s = setup()
    s.availability.lost(new Error('connect ECONNREFUSED'))
    const waiting = s.availability.whenUp()
    s.availability.close()
    await expect(waiting).resolves.toBe(false)
    const probes = s.probes.length
    for (let i = 0; i < 5; i++) await tick()
    expect(s.probes.length).toBe(probes)
  })
})
