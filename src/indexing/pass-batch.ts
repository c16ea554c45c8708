/**
 * A sync pass's batch (sync-pass.ts): the files it prepared and the unchanged ones whose
 * stat it refreshes, written in one transaction per index, with their vectors first when
 * some index stores them. When the store overlaps writes (SpaceWriter.overlapsWrites) or
 * files are prepared elsewhere, a batch is written while the pass prepares the next one,
 * and staged (SpaceWriter.stage) while the one before it is still being written; its
 * failure is thrown by the next commit or by `written()`.
 */
import type { FileRecord } from '../domain/chunks.js'
import type { IndexChange } from '../events/space-events.js'
import type { FileChanges, SpaceWriter, StepOptions } from '../store/port.js'
import type { PreparedFile } from './prepare-file.js'

/** The indexes a pass writes to (write-targets.ts): a rebuild may join or leave meanwhile. */
export type PassTargets = {
  /** The indexes now. */
  all: () => readonly SpaceWriter[]
  /**
   * Marks a write to the indexes `all()` gives next as in flight until the returned release:
   * a rebuild's swap waits for none to be, so a change never reaches the old live index and
   * misses the new one (nor meets the new one closed).
   */
  hold: () => () => void
}

/** Runs `fn` on each index of one set of them, held until it is done (PassTargets.hold). */
async function forEachTarget(targets: PassTargets, fn: (target: SpaceWriter) => Promise<void>): Promise<void> {
  const release = targets.hold()
  try {
    for (const target of targets.all()) await fn(target)
  } finally {
    release()
  }
}

export type PassBatchDeps = {
  /** The indexes the pass writes to, asked at each write. */
  targets: PassTargets
  steps: StepOptions
  /** Embeds a batch's chunks (pass-vectors.ts). */
  embed: (files: PreparedFile[]) => Promise<void>
  /** Told of each file once written (GET /events); none for a rebuild's new index. */
  announce?: ((change: IndexChange) => void) | undefined
  overlaps: boolean
  signal?: AbortSignal | undefined
}

export function createPassBatch(deps: PassBatchDeps) {
  let writes: PreparedFile[] = []
  let touches: FileRecord[] = []
  let chunks = 0
  let writing: Promise<void> = Promise.resolve()

  const writeAll = (changes: FileChanges) =>
    forEachTarget(deps.targets, (target) => target.applyChanges(changes, deps.steps))

  async function commit(): Promise<void> {
    if (writes.length === 0 && touches.length === 0) return
    deps.signal?.throwIfAborted()
    const w = writes
    const t = touches
    writes = []
    touches = []
    chunks = 0
    // Vectors are only worth paying for when some index stores them.
    if (deps.targets.all().some((target) => target.storesVectors())) await deps.embed(w)
    const changes: FileChanges = { replace: w, touch: t }
    for (const target of deps.targets.all()) target.stage?.(changes)
    await writing
    const write = writeAll(changes).then(() => {
      for (const { record: r, chunks } of w) {
        deps.announce?.({
          kind: 'indexed',
          path: r.path,
          sha256: r.sha256,
          sizeBytes: r.sizeBytes,
          chunks: chunks.length,
        })
      }
    })
    if (!deps.overlaps) return write
    writing = write
    write.catch(() => undefined)
  }

  return {
    /** Queues a prepared file's rows. */
    add(file: PreparedFile): void {
      writes.push(file)
      chunks += file.chunks.length
    },
    /** Queues an unchanged file's refreshed record. */
    touch(record: FileRecord): void {
      touches.push(record)
    },
    /** Chunks queued since the last commit. */
    chunks: () => chunks,
    commit,
    /** Writes changes at once, past the batch (files gone). */
    writeAll,
    /** Resolves once the batch in flight is written; rejects with its failure. */
    written: () => writing,
  }
}

export type PassBatch = ReturnType<typeof createPassBatch>
