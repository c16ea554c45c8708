/**
 * Reads on the main thread where a worker's round trip would cost more than it saves, on the
 * workers otherwise. A worker call costs a round trip (the message, the copy of the answer,
 * both threads woken: 0.2–0.6 ms on two cores, most of it waking a thread that slept) whatever
 * the index. So:
 *  - a small index is always read in process: most agents, and each user inside an agent,
 *    whose index a search reads beside its agent's (issue 32). A keyword or vector search of
 *    a few hundred chunks costs less than the round trip.
 *  - a keyword search that comes alone — no other search request in progress or overlapping
 *    one in the last second (SEARCHES_OVERLAP_MS), no other search's call waiting for a worker
 *    or running on one, and no other lone search under way, of any index — is read in process up to
 *    LONE_KEYWORD_CHUNKS: nothing else wants the main thread meanwhile, and the workers would
 *    only add their round trip. Searches that come together still spread over the workers.
 *    Vector searches stay on the workers: they cost milliseconds past a small index.
 *  - the texts of a search's results (a few rows by id, whatever the index's size) are read
 *    in process on the same terms as a lone keyword search, at any size: a lone hybrid
 *    search (whose keyword part reads its texts with the candidates) reads its results'
 *    texts after the vectors, and saves a round trip (SciFact claims, hash vectors: the
 *    service's time 0.13–0.36 ms less of about 7 ms).
 * The size is the index's chunk count, cached by the store until it changes.
 */
import { yieldToEventLoop } from '../../../shared/async.js'
import type { IndexReader, ReaderOps } from '../../index-reader.js'

/**
 * Most chunks an index may hold to be read on the main thread. A vector search of 1,000
 * chunks of 256 dimensions is ~0.45 ms in process, a keyword search well under that: short
 * enough to hold the event loop, shorter than the round trip it saves.
 */
export const SMALL_INDEX_CHUNKS = 1000
/**
 * Most chunks an index may hold for a lone keyword search to be read on the main thread.
 * SQLite's keyword search stays flat to here (p50 1.8–1.9 ms, p99 5.4–6.6 ms end to end at
 * 10,001 and 100,001 chunks, BENCHMARKS.md "the curve so far"): the longest a request that
 * arrives meanwhile waits for the main thread.
 */
export const LONE_KEYWORD_CHUNKS = 100_000

/** Lone keyword searches on the main thread now, across every index of an engine. */
export type LoneSearches = { running: number }

export type MainThreadReadsOptions = {
  /** The index's chunk count. */
  chunks: () => number | Promise<number>
  /**
   * Shared by the readers of every index: while one lone search holds the main thread, a
   * search of any index (another agent's, or the team's beside an agent's) goes to the workers.
   */
  lone: LoneSearches
  /**
   * Whether other searches are under way or coming: a call waiting for a worker or running on
   * one (read-threads.ts searching), or search requests together (shared/foreground.ts).
   */
  searching: () => boolean
  /** SMALL_INDEX_CHUNKS unless given. */
  small?: number
  /** LONE_KEYWORD_CHUNKS unless given. */
  loneChunks?: number
}

export function mainThreadWhenCheaper(
  pooled: IndexReader,
  local: ReaderOps,
  opts: MainThreadReadsOptions,
): IndexReader {
  const small = opts.small ?? SMALL_INDEX_CHUNKS
  const loneChunks = opts.loneChunks ?? LONE_KEYWORD_CHUNKS

  /**
   * Runs `local` after a turn of the event loop: the calls a search makes to the workers for
   * its other indexes are sent first, so they run while this one holds the main thread.
   */
  async function inProcess<T>(run: () => Promise<T>): Promise<T> {
    await yieldToEventLoop()
    return run()
  }

  /** `run` in process, counted as a lone search, when no other search is under way; else `pool`. */
  async function alone<T>(run: () => Promise<T>, pool: () => Promise<T>): Promise<T> {
    if (opts.lone.running > 0 || opts.searching()) return pool()
    opts.lone.running++
    try {
      return await inProcess(run)
    } finally {
      opts.lone.running--
    }
  }

  return {
    ...pooled,
    async keyword(req) {
      const chunks = await opts.chunks()
      if (chunks <= small) return inProcess(() => local.keyword(req))
      if (chunks > loneChunks) return pooled.keyword(req)
      return alone(
        () => local.keyword(req),
        () => pooled.keyword(req),
      )
    },
    vector: async (req) => ((await opts.chunks()) > small ? pooled.vector(req) : inProcess(() => local.vector(req))),
    async texts(ids) {
      if ((await opts.chunks()) <= small) return inProcess(() => local.texts(ids))
      return alone(
        () => local.texts(ids),
        () => pooled.texts(ids),
      )
    },
  }
}
