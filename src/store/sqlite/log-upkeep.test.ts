import { describe, expect, it } from 'vitest'
import { createLogUpkeep } from './log-upkeep.js'

/** An upkeep over a log holding `bytes` not yet checkpointed, whose checkpoints wait until released. */
function upkeep(opts: { bytes: number; hasRoom: boolean }) {
  let backlog = opts.bytes
  const pending: (() => void)[] = []
  let smallWrites = 0
  const u = createLogUpkeep({
    backlogBytes: () => backlog,
    checkpoint: () => new Promise<void>((resolve) => pending.push(resolve)),
    limitBytes: () => 1000,
    hasRoom: () => opts.hasRoom,
    smallWrite: () => {
      smallWrites++
      u.afterCommit()
    },
    isOpen: () => true,
  })
  /** Lets the oldest checkpoint finish and what follows it run. */
  const finish = async () => {
    pending.shift()?.()
    await new Promise((r) => setImmediate(r))
  }
  return { u, pending, finish, smallWrites: () => smallWrites, checkpointed: () => (backlog = 0) }
}

describe('createLogUpkeep', () => {
  it('asks for no checkpoint while the log is under its limit', () => {
    const t = upkeep({ bytes: 10, hasRoom: true })
    t.u.afterCommit()
    expect(t.pending).toHaveLength(0)
  })

  it('asks for one checkpoint at a time, and looks again after it when commits came meanwhile', async () => {
    const t = upkeep({ bytes: 5000, hasRoom: true })
    t.u.afterCommit()
    t.u.afterCommit()
    expect(t.pending).toHaveLength(1)
    await t.finish()
    // Still past the limit: the commit that came meanwhile gets its checkpoint now.
    expect(t.pending).toHaveLength(1)
    t.checkpointed()
    await t.finish()
    expect(t.pending).toHaveLength(0)
  })

  it('starts the log over with a small write when the volume has no room, which asks for nothing more', async () => {
    const t = upkeep({ bytes: 5000, hasRoom: false })
    t.u.afterCommit()
    await t.finish()
    expect(t.smallWrites()).toBe(1)
    // The log could not be started over (still past the limit): no loop of checkpoints.
    expect(t.pending).toHaveLength(0)
  })
})
