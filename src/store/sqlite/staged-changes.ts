/**
 * Writes file changes into one index in bounded steps, so that no file, however big, holds
 * the event loop for long (SPEC §7, fair sharing). What a transaction costs is mostly the
 * FTS5 work on the analysed terms of the chunks it inserts or deletes, so small changes are
 * grouped into transactions of at most TERMS_PER_TRANSACTION terms (more while no search
 * comes: QUIET_TERMS_PER_TRANSACTION). A bigger change is staged: the file's new chunks are
 * written under its next generation and its replaced ones marked dead at it, a batch per
 * transaction with `between()` after each; one last small transaction moves the file to
 * the new generation (its old chunks vanish and its new ones appear for every reader at
 * once, schema.ts), and the dead rows are then deleted in batches. A big deletion drops the
 * file's row at once and its chunks in batches.
 *
 * One change per path at a time (a per-path lock), so a staged change never meets another
 * half-way. Staging rows left by a process that died are finished or undone when the index
 * opens (recover).
 */
import { yieldToEventLoop } from '../../shared/async.js'
import { createKeyedMutex } from '../../shared/keyed-mutex.js'
import type { ChunkRef } from './chunk-rows.js'
import type { ChunksRepo, ReplacePlan } from './chunks-repo.js'
import type { FileRows, FileChanges, Removal, StepOptions } from '../port.js'

/**
 * Analysed terms of the chunks inserted or deleted per transaction (with their FTS5 rows):
 * about 5–10 ms of work. A Chinese chunk of 400 characters has about 600 terms (character
 * pairs), so that is 6 or 7 of them; an English one about 150.
 */
export const TERMS_PER_TRANSACTION = 4000
/**
 * Terms per transaction while no search comes (StepOptions.quiet): about 7 ms each instead
 * of 1–2. The longest commit hardly grows (13 against 12 ms: FTS5 merges segments inside
 * some commits either way), and writing 10,001 chunks takes 30 % less (bench/write-floor.ts).
 */
export const QUIET_TERMS_PER_TRANSACTION = 32_000
/** Chunk rows marked as leaving (or revived) per transaction: a small row update each. */
export const MARKS_PER_TRANSACTION = 512
/** Unchanged files whose metadata is refreshed per transaction (one small row update each). */
const TOUCHES_PER_TRANSACTION = 256

type Transaction = <T>(fn: (repo: ChunksRepo) => T) => T

/** What adding chunks throws when the index volume is too full (errors.ts maps it to 507). */
export const indexVolumeFull = (): Error =>
  Object.assign(new Error('no space left on the index volume'), { code: 'SQLITE_FULL' })

function* slices<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size)
}

/** Terms one transaction may write now. */
const budgetOf = (opts: StepOptions): number => (opts.quiet?.() ? QUIET_TERMS_PER_TRANSACTION : TERMS_PER_TRANSACTION)

/**
 * Consecutive batches of chunks holding at most `budget()` terms (at least one chunk each);
 * the budget is asked as each batch begins.
 */
function* byTerms<T extends { tokenCount: number }>(chunks: readonly T[], budget: () => number): Generator<T[]> {
  let batch: T[] = []
  let terms = 0
  let limit = budget()
  for (const chunk of chunks) {
    if (batch.length > 0 && terms + chunk.tokenCount > limit) {
      yield batch
      batch = []
      terms = 0
      limit = budget()
    }
    batch.push(chunk)
    terms += chunk.tokenCount
  }
  if (batch.length > 0) yield batch
}

const termsOf = (chunks: readonly { tokenCount: number }[]) => chunks.reduce((sum, c) => sum + c.tokenCount, 0)
/** What applying a plan costs, in terms written or deleted. */
const planTerms = (plan: ReplacePlan) => termsOf(plan.added) + termsOf(plan.removed)

export function createStagedChanges(deps: {
  transaction: Transaction
  /**
   * Whether the index volume has room for more chunks (index-store.ts keeps a reserve, so
   * that deleting and checkpointing still work when it is nearly full). Deletions never ask.
   */
  hasRoom?: () => boolean
}) {
  const tx = deps.transaction
  const ensureRoom = () => {
    if (deps.hasRoom && !deps.hasRoom()) throw indexVolumeFull()
  }
  const locks = createKeyedMutex()
  /** Paths with a staging row not yet settled (left by a dead process or a cut-off change). */
  const unsettled = new Set<string>()

  /** Runs `step` over `batches`, one transaction each, with `between()` after each. */
  async function inBatches<T>(
    batches: Iterable<T[]>,
    step: (repo: ChunksRepo, batch: T[]) => void,
    opts: StepOptions,
  ): Promise<void> {
    for (const batch of batches) {
      opts.signal?.throwIfAborted()
      tx((repo) => step(repo, batch))
      await opts.between()
    }
  }
  const removeAll = (chunks: readonly ChunkRef[], opts: StepOptions) =>
    inBatches(
      byTerms(chunks, () => budgetOf(opts)),
      (repo, batch) => repo.rows.remove(batch),
      opts,
    )

  /**
   * Finishes or undoes the staged change of `path` (caller holds its lock): a published one
   * deletes its dead chunks (all of them for a deleted file), an unpublished one deletes
   * the chunks it inserted and revives those it marked. Nothing when none is under way.
   */
  async function settle(path: string, opts: StepOptions): Promise<void> {
    const found = tx((repo) => {
      const row = repo.rows.stagingRow(path)
      if (!row) return null
      if (row.published) {
        const dead = repo.getFile(path) ? repo.rows.idsDeadBy(path, row.gen) : repo.rows.idsOfPath(path)
        return { row, remove: dead, revive: [] }
      }
      return { row, remove: repo.rows.idsBorn(path, row.gen), revive: repo.rows.idsDeadAt(path, row.gen) }
    })
    if (found) {
      const { gen } = found.row
      await removeAll(found.remove, opts)
      await inBatches(
        slices(found.revive, MARKS_PER_TRANSACTION),
        (repo, batch) => repo.rows.unmarkDead(batch, gen),
        opts,
      )
      tx((repo) => repo.rows.endStaging(path))
    }
    unsettled.delete(path)
  }

  /**
   * Settles what a change left (caller holds the lock), unless the store is closing. The
   * path counts as unsettled until that succeeds: a settle that fails (a full volume) is
   * tried again before the next change to the path.
   */
  async function afterStaging(path: string, opts: StepOptions): Promise<void> {
    unsettled.add(path)
    if (!opts.signal?.aborted) await settle(path, { between: opts.between })
  }

  /** A change too big for one transaction, staged and published (caller holds the lock). */
  async function stageReplace(change: FileRows, opts: StepOptions): Promise<void> {
    const { record } = change
    if (unsettled.has(record.path)) await settle(record.path, opts)
    const begun = tx((repo) => {
      const plan = repo.planReplace(record, change.chunks)
      if (!plan) return null
      const gen = repo.fileGen(record.path) + 1
      repo.rows.beginStaging(record.path, gen, false)
      return { plan, gen }
    })
    if (!begun) return
    const { plan, gen } = begun
    try {
      await inBatches(
        byTerms(plan.added, () => budgetOf(opts)),
        (repo, batch) => {
          ensureRoom()
          repo.rows.insert(record, batch, gen)
        },
        opts,
      )
      await inBatches(
        slices(plan.removed, MARKS_PER_TRANSACTION),
        (repo, batch) => repo.rows.markDead(batch, gen),
        opts,
      )
      opts.signal?.throwIfAborted()
      // A newer read of the file committed meanwhile wins: unpublished, the change is undone.
      tx((repo) => repo.publishFile(record, gen))
    } finally {
      await afterStaging(record.path, opts)
    }
  }

  /** A deletion of a file with many chunks: its row goes at once, its chunks in batches. */
  async function stageRemoval(removal: Removal, opts: StepOptions): Promise<void> {
    if (unsettled.has(removal.path)) await settle(removal.path, opts)
    const removed = tx((repo) => {
      if (!repo.deleteFile(removal.path, removal.readSeq, { chunks: false })) return false
      repo.rows.beginStaging(removal.path, 0, true)
      return true
    })
    if (removed) await afterStaging(removal.path, opts)
  }

  /**
   * Replaces what fits of `group` in one transaction (caller holds their locks); says
   * which changes need staging and which did not fit this time.
   */
  function replaceSmall(group: readonly FileRows[], budget: number) {
    return tx((repo) => {
      const big: FileRows[] = []
      const later: FileRows[] = []
      let terms = 0
      for (const change of group) {
        if (unsettled.has(change.record.path)) {
          big.push(change)
          continue
        }
        if (terms >= budget) {
          later.push(change)
          continue
        }
        const plan = repo.planReplace(change.record, change.chunks)
        if (!plan) continue
        const size = planTerms(plan)
        if (size > budget) big.push(change)
        else {
          if (plan.added.length > 0) ensureRoom()
          repo.applyReplace(change.record, plan)
          terms += Math.max(1, size)
        }
      }
      return { big, later }
    })
  }

  function removeSmall(group: readonly Removal[], budget: number) {
    return tx((repo) => {
      const big: Removal[] = []
      const later: Removal[] = []
      let terms = 0
      for (const removal of group) {
        if (unsettled.has(removal.path)) {
          big.push(removal)
          continue
        }
        if (terms >= budget) {
          later.push(removal)
          continue
        }
        const size = repo.rows.termsOfPath(removal.path)
        if (size > budget) big.push(removal)
        else {
          repo.deleteFile(removal.path, removal.readSeq)
          terms += Math.max(1, size)
        }
      }
      return { big, later }
    })
  }

  /** The next changes whose new chunks fit one transaction of `budget` terms (at least one). */
  function takeGroup<T>(queue: T[], weight: (item: T) => number, budget: number): T[] {
    let total = 0
    let n = 0
    while (n < queue.length && (n === 0 || total + weight(queue[n] as T) <= budget)) {
      total += weight(queue[n] as T)
      n++
    }
    return queue.splice(0, n)
  }

  async function run<T extends FileRows | Removal>(
    items: readonly T[],
    pathOf: (item: T) => string,
    weight: (item: T) => number,
    small: (group: readonly T[], budget: number) => { big: T[]; later: T[] },
    stage: (item: T, opts: StepOptions) => Promise<void>,
    opts: StepOptions,
  ): Promise<void> {
    const queue = [...items]
    while (queue.length > 0) {
      opts.signal?.throwIfAborted()
      const budget = budgetOf(opts)
      const group = takeGroup(queue, weight, budget)
      const { big, later } = await locks.runAll(group.map(pathOf), async () => small(group, budget))
      queue.unshift(...later)
      await opts.between()
      for (const item of big) await locks.run(pathOf(item), () => stage(item, opts))
    }
  }

  return {
    /**
     * Writes `changes`: replacements, then metadata refreshes, then removals, each an older
     * read than the index holds skipped. Resolves when all of it is visible.
     */
    async apply(changes: FileChanges, opts: StepOptions): Promise<void> {
      await run(
        changes.replace ?? [],
        (c) => c.record.path,
        (c) => termsOf(c.chunks),
        replaceSmall,
        stageReplace,
        opts,
      )
      for (const batch of slices(changes.touch ?? [], TOUCHES_PER_TRANSACTION)) {
        opts.signal?.throwIfAborted()
        tx((repo) => batch.forEach((file) => repo.touchFile(file)))
        await opts.between()
      }
      await run(
        changes.remove ?? [],
        (r) => r.path,
        () => 1,
        removeSmall,
        stageRemoval,
        opts,
      )
    },
    /**
     * Finishes or undoes the staged changes a dead process left, in the background; every
     * change to one of their paths waits for it. Resolves with the number of paths.
     */
    recover(): Promise<number> {
      const rows = tx((repo) => repo.rows.stagingRows())
      for (const row of rows) unsettled.add(row.path)
      return Promise.all(
        rows.map((row) => locks.run(row.path, () => settle(row.path, { between: yieldToEventLoop }))),
      ).then(() => rows.length)
    },
    /** No change is under way or waiting. */
    isSettled: (): boolean => locks.busyKeys() === 0,
    /** Resolves once no change is under way or waiting. */
    settled: (): Promise<void> => locks.whenIdle(),
  }
}

export type StagedChanges = ReturnType<typeof createStagedChanges>
