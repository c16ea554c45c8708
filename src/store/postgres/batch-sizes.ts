/** How many chunks a sync pass writes per PostgreSQL transaction (SpaceWriter.batchChunks). */

/**
 * Chunks a sync pass writes per transaction: each costs round trips and an upsert of every
 * term its chunks hold, shared by more files in a bigger batch; 250 chunks hold the space's
 * write lock for about 100 ms.
 */
export const PG_BATCH_CHUNKS = 250
/**
 * The same while no search comes (SpaceWriter.quietBatchChunks). A batch's distinct terms
 * grow slower than its chunks, so 1,000 chunks upsert half the term rows 250 do (362,000
 * against 680,000 for a 20,001-chunk first index) and the index is about a fifth faster
 * (BENCHMARKS.md, "PostgreSQL cold index: bigger batches while no search comes"). Such a
 * transaction holds the space's write lock about 0.5 s; its rows are encoded in slices
 * (index-writes.ts), so the event loop waits no longer than for a busy batch. 2,000 was no
 * faster.
 */
export const PG_QUIET_BATCH_CHUNKS = 1000
