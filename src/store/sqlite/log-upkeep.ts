/**
 * Keeps an index's write-ahead log in bounds (the writer's side of wal-checkpoint.ts): after
 * every commit what the log holds past its last checkpoint is looked at (wal-backlog.ts, a
 * read of a few µs), and past its limit (volume-room.ts) a checkpoint is asked for off the
 * main thread, one at a time; a commit that comes while one runs has the log looked at
 * again when it is done. SQLite cuts the log back only when the writer next starts it over,
 * so when the volume has no room left (no sync then writes anything) a one-row write does
 * it; without that, an index that filled its volume could not recover until a restart
 * (index-volume-full.test.ts).
 */
import type { CheckpointResult } from './wal-checkpoint.js'

export function createLogUpkeep(deps: {
  /** Bytes of the log not yet checkpointed (wal-backlog.ts). */
  backlogBytes: () => number
  /**
   * Checkpoints the log elsewhere (the search workers); resolves when done, with its
   * CheckpointResult when it has one.
   */
  checkpoint: () => Promise<unknown>
  /** Log size at which a checkpoint is due (bytes). */
  limitBytes: () => number
  hasRoom: () => boolean
  /** A one-row write transaction; it calls afterCommit like any other. */
  smallWrite: () => void
  isOpen: () => boolean
}) {
  let checkpointing = false
  let askedMeanwhile = false
  /**
   * What the log held after a checkpoint a reader stopped short (bytes): a reader in it
   * (another process's read transaction) keeps checkpoints from copying past its snapshot.
   * The next is asked for once commits add a limit past that, not after every commit while
   * the reader stays.
   */
  let held = 0

  function afterCommit(): void {
    if (checkpointing) {
      askedMeanwhile = true
      return
    }
    const backlog = deps.backlogBytes()
    // Less than that: a checkpoint got past the reader, or the log was started over.
    held = Math.min(held, backlog)
    if (backlog - held < deps.limitBytes()) return
    checkpointThenStartOver()
  }

  /**
   * A change was refused for want of room, so nothing commits: a checkpoint, and the log
   * started over after it, are what can give room back. Without this, a checkpoint that a
   * reader had stopped short was not asked for again until something committed, which a
   * volume without room may never see.
   */
  function roomShort(): void {
    if (!checkpointing) checkpointThenStartOver()
  }

  function checkpointThenStartOver(): void {
    checkpointing = true
    void deps
      .checkpoint()
      // A failed checkpoint (the pool closing) is tried again after a later commit.
      .catch(() => undefined)
      .then((result) => {
        // The small write's own commit asks for nothing: a checkpoint that could not start
        // the log over (a reader still in it) would only be asked for again and again.
        const asked = askedMeanwhile
        const full = deps.isOpen() && !deps.hasRoom()
        if (full) startOver()
        // A full volume gets a checkpoint after every commit still: the one that starts the
        // log over once the reader is gone is what frees room, and no commit adds a limit.
        held = stoppedShort(result) && !full && deps.isOpen() ? deps.backlogBytes() : 0
        askedMeanwhile = false
        checkpointing = false
        if (deps.isOpen() && asked) afterCommit()
      })
  }

  function startOver(): void {
    try {
      deps.smallWrite()
    } catch {
      // A reader still holds the log, or the write found no room: the next commit tries again.
    }
  }

  return { afterCommit, roomShort }
}

/**
 * Whether a checkpoint's result (wal-checkpoint.ts) says it copied fewer frames than the
 * log held when it ran: a reader stopped it. Commits during the checkpoint do not count.
 */
function stoppedShort(result: unknown): boolean {
  const r = result as Partial<CheckpointResult> | undefined
  return typeof r?.log === 'number' && typeof r.checkpointed === 'number' && r.checkpointed < r.log
}
