/**
 * Impact lists paused while a full pass fills an empty index, and built once after it
 * (indexes.lists). Kept by every write, the lists cost a cold index about a third of its
 * speed (BENCHMARKS.md): each batch adds to, cuts and rebuilds lists the next batch changes
 * again. So the pass's first write into an index that holds no chunk pauses them: no write
 * keeps or builds a list while they are paused, on any replica (every write reads the state
 * in its transaction, under the space's lock), and searches rank every term from its chunks
 * (GIN), which is exact, only slower for common terms.
 *
 * The compaction that follows the pass (SpaceWriter.compact) builds them, still paused, in
 * two reads of the chunks in id order, RESUME_CHUNKS a statement:
 *  1. without the space's lock, it ranks the impacts of every term due a list and keeps the
 *     best `keep` of each in memory: the `keep`-th is the term's floor. A read returns only
 *     impacts at or above the floor so far, so the first reads return most of them and the
 *     rest few.
 *  2. under the lock, one transaction a read, it writes every posting at or above its
 *     term's floor to `postings`, where searches do not read them while terms.floor is NULL.
 * The last transaction writes the chunks written since, gives each list its floor, builds
 * from its chunks (GIN) the list of any term that became due meanwhile or that deletions
 * left short, cuts those grown long, and marks the lists kept. Every posting at or above a
 * floor is listed whatever was written or deleted meanwhile: deleted chunks' postings leave
 * the lists as they leave kept ones, and new chunks come after those read.
 *
 * Written a read at a time instead, each list was written about four times over (each read
 * added its best `keep` and cut the list back), and the lock was held 1.8 s a transaction
 * at 20,001 chunks. Per-term builds (impact-lists.ts build), run after a first index of
 * 100,001 chunks, took 84 s: each reads every chunk holding its term, and a common term's
 * are most of them. A compaction cut short leaves the lists paused, with postings the next
 * compaction drops before it starts again; a pass that fails before its end leaves them
 * paused until the next full pass's compaction. One compaction builds an index's lists at
 * a time (a session lock), on whichever replica takes it first; one whose lock went with
 * its connection (a database restart) stops at its next transaction if another began again
 * meanwhile (indexes.list_build), as that one dropped what it wrote.
 */
import type { Client, Queryable, Tables } from './database.js'
import { averageTokens, impactSql, type ImpactListOptions, type ImpactLists } from './impact-lists.js'
import { termCheck, termHash, termKeySql } from './term-hash.js'

/**
 * Chunks a compaction reads per statement to build paused lists: a transaction that writes
 * their postings holds the space's write lock about as long as a sync's batch does
 * (PG_BATCH_CHUNKS).
 */
const RESUME_CHUNKS = 2_000

/** A paused index's lists being built: the terms due one, and how far the chunks were read. */
export type Staging = {
  /** The terms due a list when the build began, in term order. */
  due: string[]
  /** Their termHash and termCheck, which their keys are made of (term-hash.ts). */
  hashes: number[]
  checks: number[]
  /** The chunk length their impacts normalise against (terms.reference). */
  reference: number
  /**
   * This build's number (indexes.list_build): a build that finds another number stops, as
   * another replica began again after the database took this one's lock away with its
   * connection (and dropped what this one wrote).
   */
  build: number
  /** The last chunk id read so far by the current read (0: none). */
  after: number
  /** Each due term's best `keep` impacts read so far, best first (read 1). */
  best: Map<string, number[]>
}

/**
 * The postings of the terms $2 (their hashes and checks $7 and $8) in the chunks of the
 * index $1 after the id $4 (up to $5, or all), with impacts normalised against $6, and each
 * term's floor $3 (NULL: none yet): postingParams.
 */
const postingsSql = (t: Tables) =>
  `due AS (SELECT u.term, ${termKeySql('u.h', 'u.k', '$1')} AS key, u.floor
     FROM unnest($2::text[], $3::float8[], $7::int4[], $8::int4[]) AS u(term, floor, h, k)),
   p AS (
     SELECT d.term, d.floor, c.id, COALESCE(c.counts[2 * k.at - 1], 0) AS body,
       COALESCE(c.counts[2 * k.at], 0) AS heading, c.token_count AS tokens
     FROM ${t.chunks} c CROSS JOIN LATERAL unnest(c.keys) WITH ORDINALITY AS k(key, at)
     JOIN due d ON d.key = k.key
     WHERE c.index_id = $1 AND c.id > $4 AND ($5::bigint IS NULL OR c.id <= $5)),
   r AS (
     SELECT p.*, ${impactSql('p.body', 'p.heading', 'p.tokens', '$6::float8')} AS impact FROM p)`

/** Read 1: the best $9 impacts at or above its floor of each term, best first. */
const rankSql = (t: Tables) =>
  `WITH ${postingsSql(t)}
   SELECT term, array_agg(impact ORDER BY impact DESC) AS impacts FROM (
     SELECT term, impact, row_number() OVER (PARTITION BY term ORDER BY impact DESC) AS place
     FROM r WHERE floor IS NULL OR impact >= floor) x
   WHERE place <= $9 GROUP BY term`

/** Read 2: writes the postings at or above their term's floor, and counts them in. */
const fillSql = (t: Tables) =>
  `WITH ${postingsSql(t)},
   ins AS (
     INSERT INTO ${t.postings} (index_id, term, impact, chunk_id, body, heading, tokens)
     SELECT $1, term, impact, id, body, heading, tokens FROM r WHERE floor IS NULL OR impact >= floor
     ON CONFLICT DO NOTHING
     RETURNING term)
   UPDATE ${t.terms} AS t SET listed = t.listed + s.n
   FROM (SELECT term, COUNT(*)::int AS n FROM ins GROUP BY term) s
   WHERE t.index_id = $1 AND t.term = s.term`

/**
 * Gives the lists of the terms $2 of the index $1 their floors $3 (NULL: the term had fewer
 * than `keep` postings, all listed: its lowest) and the reference $4.
 */
const floorSql = (t: Tables) =>
  `UPDATE ${t.terms} AS t SET reference = $4, floor = COALESCE(u.floor,
     (SELECT MIN(p.impact) FROM ${t.postings} p WHERE p.index_id = $1 AND p.term = u.term))
   FROM unnest($2::text[], $3::float8[]) AS u(term, floor)
   WHERE t.index_id = $1 AND t.term = u.term`

/**
 * Run first in the transaction of each read: the planner, which guesses 10 terms a chunk
 * (161 at 20,001 chunks), joins the chunks' terms to the due ones by sorting both, on
 * disk; a hash of the due terms instead made a read of 2,000 chunks 5.5× as fast (1.65 s
 * against 0.30 s).
 */
const HASH_JOIN = 'SET LOCAL enable_mergejoin = off'

/** Keeps the best `keep` of `a` and `b` (each best first), best first. */
export function mergeBest(a: readonly number[], b: readonly number[], keep: number): number[] {
  const out: number[] = []
  let i = 0
  let j = 0
  while (out.length < keep && (i < a.length || j < b.length)) {
    if (j >= b.length || (i < a.length && (a[i] as number) >= (b[j] as number))) out.push(a[i++] as number)
    else out.push(b[j++] as number)
  }
  return out
}

/**
 * Pauses the lists of the index $1 if $2 and it holds no chunk; answers their state. The
 * outer SELECT sees the row as it was before the UPDATE: the UPDATE's answer first.
 */
const pauseSql = (t: Tables) =>
  `WITH p AS (UPDATE ${t.indexes} SET lists = 'paused'
     WHERE id = $1 AND $2::boolean AND chunk_rows = 0 AND lists <> 'paused' RETURNING lists)
   SELECT COALESCE((SELECT lists FROM p), (SELECT lists FROM ${t.indexes} WHERE id = $1)) AS lists`

/** Each due term's floor so far: its `keep`-th best impact read, or null while it has fewer. */
const floors = (staging: Staging, keep: number) =>
  staging.due.map((term) => {
    const best = staging.best.get(term)
    return best && best.length >= keep ? (best[keep - 1] as number) : null
  })

/** postingsSql's parameters, for the chunks of `indexId` after `staging.after` up to `last` (null: all). */
const postingParams = (indexId: number, staging: Staging, keep: number, last: number | null) => [
  indexId,
  staging.due,
  floors(staging, keep),
  staging.after,
  last,
  staging.reference,
  staging.hashes,
  staging.checks,
]

/** The last chunk id of the next `n` of the index after the id `after` (null: none). */
async function nextLast(c: Queryable, t: Tables, indexId: number, after: number, n: number): Promise<number | null> {
  const { rows } = await c.query<{ last: number | null }>(
    `SELECT MAX(id) AS last FROM (SELECT id FROM ${t.chunks} WHERE index_id = $1 AND id > $2 ORDER BY id LIMIT $3) x`,
    [indexId, after, n],
  )
  return rows[0]?.last ?? null
}

export function createListResume(t: Tables, lists: ImpactLists, opts: ImpactListOptions) {
  const { keep } = opts
  const chunksPerStep = opts.resumeChunks ?? RESUME_CHUNKS
  /**
   * Whether the lists of `indexId` are still paused (another transaction may have built
   * them), and by `build` if given (another may have begun again).
   */
  async function stillPaused(c: Queryable, indexId: number, build?: number): Promise<boolean> {
    const { rows } = await c.query<{ lists: string; build: string }>(
      `SELECT lists, list_build AS build FROM ${t.indexes} WHERE id = $1`,
      [indexId],
    )
    const row = rows[0]
    return row?.lists === 'paused' && (build === undefined || Number(row.build) === build)
  }

  /** Writes the postings at or above their floors of the chunks after `staging.after` (up to `last`, or all). */
  async function fill(c: Client, indexId: number, staging: Staging, last: number | null): Promise<void> {
    if (staging.due.length === 0) return
    await c.query(HASH_JOIN)
    await c.query(fillSql(t), postingParams(indexId, staging, keep, last))
  }

  return {
    /**
     * Whether the lists of `indexId` are paused; `pause`: the write is a full pass's, which
     * pauses them if the index held no chunk before it (so no list either).
     */
    async paused(c: Client, indexId: number, pause: boolean): Promise<boolean> {
      const { rows } = await c.query<{ lists: string }>(pauseSql(t), [indexId, pause])
      return rows[0]?.lists === 'paused'
    },
    stillPaused,
    /**
     * Starts building the paused lists of `indexId` (null: they are not paused): drops what
     * a build cut short wrote, and takes the terms due a list.
     */
    async begin(c: Client, indexId: number): Promise<Staging | null> {
      if (!(await stillPaused(c, indexId))) return null
      // Paused lists are all unfinished ones: no list is built or kept while they are paused.
      await c.query(`DELETE FROM ${t.postings} WHERE index_id = $1`, [indexId])
      await c.query(`UPDATE ${t.terms} SET listed = 0 WHERE index_id = $1 AND listed <> 0`, [indexId])
      const { rows } = await c.query<{ due: string[]; reference: number; build: string }>(
        `WITH b AS (UPDATE ${t.indexes} SET list_build = list_build + 1 WHERE id = $1 RETURNING list_build)
         SELECT ARRAY(SELECT term FROM ${t.terms} WHERE index_id = $1 AND df >= $2 ORDER BY term) AS due,
           ${averageTokens(t.indexes)} AS reference, (SELECT list_build FROM b) AS build`,
        [indexId, lists.minDocFreq],
      )
      const row = rows[0] as { due: string[]; reference: number; build: string }
      return {
        due: row.due,
        hashes: row.due.map(termHash),
        checks: row.due.map(termCheck),
        reference: row.reference,
        build: Number(row.build),
        after: 0,
        best: new Map(),
      }
    },
    /**
     * Read 1, in a transaction of the caller's that does not hold the lock: ranks the next RESUME_CHUNKS chunks after `staging.after`
     * into `staging.best`; returns the last chunk id read, which the caller moves `after`
     * to, or null once every chunk there was is read.
     */
    async rank(c: Client, indexId: number, staging: Staging): Promise<number | null> {
      const last = await nextLast(c, t, indexId, staging.after, chunksPerStep)
      if (last === null || staging.due.length === 0) return null
      await c.query(HASH_JOIN)
      const { rows } = await c.query<{ term: string; impacts: number[] }>(rankSql(t), [
        ...postingParams(indexId, staging, keep, last),
        keep,
      ])
      // Merged once the read succeeded; read again after a lost commit, a term's impacts
      // count twice: its floor may be higher and its list shorter, never missing a posting.
      for (const r of rows) staging.best.set(r.term, mergeBest(staging.best.get(r.term) ?? [], r.impacts, keep))
      return last
    },
    /**
     * Read 2, in the caller's transaction: writes the postings at or above their floors of
     * the next RESUME_CHUNKS chunks after `staging.after`; returns the last chunk id read,
     * or null once every chunk there was is read (or the lists are no longer this build's).
     */
    async next(c: Client, indexId: number, staging: Staging): Promise<number | null> {
      if (!(await stillPaused(c, indexId, staging.build))) return null
      const last = await nextLast(c, t, indexId, staging.after, chunksPerStep)
      if (last !== null) await fill(c, indexId, staging, last)
      return last
    },
    /**
     * Writes the postings of the chunks written since, gives each list its floor, builds
     * those due one that have none or too few, cuts those grown long, and marks the lists kept.
     */
    async finish(c: Client, indexId: number, staging: Staging): Promise<void> {
      if (!(await stillPaused(c, indexId, staging.build))) return
      await fill(c, indexId, staging, null)
      await c.query(floorSql(t), [indexId, staging.due, floors(staging, keep), staging.reference])
      const { rows } = await c.query<{ short: string[]; long: string[] }>(
        `SELECT ARRAY(SELECT term FROM ${t.terms} WHERE index_id = $1 AND df >= $2
             AND (floor IS NULL OR listed < $3::float8 / 4) ORDER BY term) AS short,
           ARRAY(SELECT term FROM ${t.terms} WHERE index_id = $1 AND listed > 2 * $3 ORDER BY term) AS long`,
        [indexId, lists.minDocFreq, keep],
      )
      const { short, long } = rows[0] as { short: string[]; long: string[] }
      await c.query(`UPDATE ${t.indexes} SET lists = 'kept' WHERE id = $1`, [indexId])
      await lists.build(c, indexId, short)
      await lists.cut(c, indexId, long)
    },
  }
}

export type ListResume = ReturnType<typeof createListResume>
