import { describe, expect, it } from 'vitest'
import { createLogUpkeep } from './log-upkeep.js'

/** An upkeep over a log holding `bytes` not yet checkpointed, whose checkpoints wait until released. */
function upkeep(opts: { bytes: number; hasRoom: boolean }) {
  let backlog = opts.bytes
  const pending: ((result?: unknown) => void)[] = []
  let smallWrites = 0
  const u = createLogUpkeep({
    backlogBytes: () => backlog,
    checkpoint: () => new Promise<unknown>((resolve) => pending.push(resolve)),
    limitBytes: () => 1000,
    hasRoom: () => opts.hasRoom,
    smallWrite: () => {
      smallWrites++
      u.afterCommit()
    },
    isOpen: () => true,
  })
  /** Lets the oldest checkpoint finish (with `result`, wal-checkpoint.ts) and what follows it run. */
  const finish = async (result?: unknown) => {
    pending.shift()?.(result)
    await new Promise((r) => setImmediate(r))
  }
  return {
    u,
    pending,
    finish,
    smallWrites: () => smallWrites,
    checkpointed: () => (backlog = 0),
    /** The log now holds `bytes` past its last checkpoint. */
    holds: (bytes: number) => (backlog = bytes),
  }
}

/** What a checkpoint a reader stopped short of the log's end answers (frames). */
const STOPPED_SHORT = { busy: 0, log: 40, checkpointed: 0 }

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
    // The checkpoint copied the log; the commit that came meanwhile added past the limit.
    t.holds(2000)
    await t.finish()
    // It gets its checkpoint now.
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

  it('asks for a checkpoint when a change is refused for want of room, though nothing commits', async () => {
    // The last checkpoint was stopped short by a reader; the log is under its limit since.
    const t = upkeep({ bytes: 10, hasRoom: false })
    t.u.roomShort()
    t.u.roomShort()
    expect(t.pending).toHaveLength(1)
    await t.finish()
    // Then the log is started over, which is what gives the room back.
    expect(t.smallWrites()).toBe(1)
    t.u.roomShort()
    expect(t.pending).toHaveLength(1)
  })

  it('asks again only once commits add a limit past what a reader kept a checkpoint from copying', async () => {
    const t = upkeep({ bytes: 5000, hasRoom: true })
    t.u.afterCommit()
    // A reader in the log (another process's read transaction): the checkpoint copies nothing.
    await t.finish(STOPPED_SHORT)
    for (const bytes of [5200, 5500, 5900]) {
      t.holds(bytes)
      t.u.afterCommit()
    }
    expect(t.pending).toHaveLength(0)
    t.holds(6100)
    t.u.afterCommit()
    expect(t.pending).toHaveLength(1)
    // The reader is gone: this checkpoint copies the log, and the next limit counts from 0.
    t.checkpointed()
    await t.finish()
    t.holds(1100)
    t.u.afterCommit()
    expect(t.pending).toHaveLength(1)
  })

  it('asks again after every commit while a reader holds the log of a volume without room', async () => {
    const t = upkeep({ bytes: 5000, hasRoom: false })
    t.u.afterCommit()
    // The reader keeps the checkpoint from copying, and the small write from starting over.
    await t.finish(STOPPED_SHORT)
    expect(t.smallWrites()).toBe(1)
    // Deletions add little to the log: the next checkpoint must not wait for a limit more.
    t.holds(5100)
    t.u.afterCommit()
    expect(t.pending).toHaveLength(1)
  })

  it('asks again at once when commits during a checkpoint that copied the whole log add past the limit', async () => {
    const t = upkeep({ bytes: 5000, hasRoom: true })
    t.u.afterCommit()
    t.holds(6000)
    t.u.afterCommit()
    // It copied every frame it found; the log holds more than before, all of it new.
    await t.finish({ busy: 0, log: 40, checkpointed: 40 })
    expect(t.pending).toHaveLength(1)
  })
})
