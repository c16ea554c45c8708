/**
 * Term counts paused while a full pass fills an empty index, and counted once after it
 * (indexes.counted_to). Kept by every write, the counts cost a cold index a quarter of the
 * database's time (BENCHMARKS.md): each batch upserts a row for each of its thousands of
 * distinct terms, most of which the next batch upserts again. So the pass that pauses the
 * impact lists (list-resume.ts) sets counted_to to 0, and from then on terms.df counts the
 * chunks up to counted_to only:
 *  - a write (index-writes.ts) counts in and out the chunks whose id is at most counted_to,
 *    which it reads in its transaction under the space's lock, and leaves the others;
 *  - the compaction after the pass counts the chunks after counted_to, COUNT_CHUNKS a
 *    transaction under the lock, moving counted_to past them, and sets it back to NULL
 *    (every chunk counted) once none is left. A chunk is counted by exactly one of them:
 *    its write, if its id was at most counted_to then, else the step that moves past it.
 *  - searches add to terms.df the chunks after counted_to that hold the term, read from the
 *    GIN index, so their statistics stay exact meanwhile (a common term costs a count of
 *    its chunks: slower, not wrong).
 * Each step reads counted_to in its own transaction, so a step run again after a lost
 * commit, a compaction cut short, or two replicas' compactions side by side count each chunk
 * once. Impact lists are built after the counts (their due terms come from terms.df).
 */
import type { Client, Tables } from './database.js'

/**
 * Chunks a compaction counts per transaction: it holds the space's write lock about as long
 * as a sync's batch does (PG_BATCH_CHUNKS).
 */
const COUNT_CHUNKS = 2_000

/**
 * The document frequency of the key `key` (`<index id>:<term>`, SQL) in the index whose row
 * is `i` (an alias of the indexes table), given its counted frequency `df` (SQL, a terms row's
 * df or 0): the chunks after i.counted_to holding it are counted from the GIN index.
 */
export const docFreqSql = (t: Tables, i: string, df: string, key: string) =>
  `(${df} + CASE WHEN ${i}.counted_to IS NULL THEN 0 ELSE (SELECT COUNT(*)::int FROM ${t.chunks} x
     WHERE x.terms @> ARRAY[(${key}) COLLATE "C"] AND x.id > ${i}.counted_to) END)`

/**
 * Counts in the next $2 chunks of the index $1 after its counted_to, and moves counted_to to
 * the last of them, or to NULL when fewer were left (no writer adds any meanwhile: the caller
 * holds the space's lock). Answers counted_to as it leaves it; no row when it was NULL.
 */
const stepSql = (t: Tables) =>
  `WITH ix AS (SELECT counted_to FROM ${t.indexes} WHERE id = $1::bigint AND counted_to IS NOT NULL),
   r AS MATERIALIZED (SELECT c.id, c.terms FROM ${t.chunks} c
     WHERE c.index_id = $1 AND c.id > (SELECT counted_to FROM ix) ORDER BY c.id LIMIT $2),
   counted AS (
     INSERT INTO ${t.terms} AS d (index_id, term, df)
     SELECT $1, substr(k, length($1::bigint::text) + 2), COUNT(*)::int FROM r CROSS JOIN LATERAL unnest(r.terms) AS k
     GROUP BY 2
     ON CONFLICT (index_id, term) DO UPDATE SET df = d.df + excluded.df)
   UPDATE ${t.indexes} SET counted_to = CASE WHEN (SELECT COUNT(*) FROM r) < $2 THEN NULL
     ELSE (SELECT MAX(id) FROM r) END
   WHERE id = $1 AND counted_to IS NOT NULL
   RETURNING counted_to`

/** `chunksPerStep`: COUNT_CHUNKS unless given (tests count a few at a time). */
export function createTermCounts(t: Tables, chunksPerStep = COUNT_CHUNKS) {
  return {
    /** Whether the index `indexId` has chunks its term counts leave out. */
    async pending(c: Client, indexId: number): Promise<boolean> {
      const { rows } = await c.query(`SELECT 1 FROM ${t.indexes} WHERE id = $1 AND counted_to IS NOT NULL`, [indexId])
      return rows.length > 0
    },
    /**
     * In the caller's transaction, which holds the space's lock: counts the next chunks the
     * counts leave out; answers whether any may be left.
     */
    async step(c: Client, indexId: number): Promise<boolean> {
      const { rows } = await c.query<{ counted_to: number | null }>(stepSql(t), [indexId, chunksPerStep])
      return rows.length > 0 && rows[0]?.counted_to !== null
    },
  }
}

export type TermCounts = ReturnType<typeof createTermCounts>
