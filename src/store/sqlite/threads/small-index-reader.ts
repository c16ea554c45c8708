/**
 * Reads of a small index on the main thread, of a big one on the search workers. A worker
 * call costs a round trip (the message, the copy of the answer, turns of both event loops:
 * about 0.2 ms on two busy cores) whatever the index; a keyword or vector search of an
 * index of a few hundred chunks costs less than that in process. Small indexes are the
 * common case — most agents, and each user inside an agent, whose index a search reads
 * beside its agent's (issue 32) — so they are read where the search runs. The size is the
 * index's chunk count, cached by the store until it changes.
 */
import { yieldToEventLoop } from '../../../shared/async.js'
import type { IndexReader, ReaderOps } from '../../index-reader.js'

/**
 * Most chunks an index may hold to be read on the main thread. A vector search of 1,000
 * chunks of 256 dimensions is ~0.45 ms in process, a keyword search well under that: short
 * enough to hold the event loop, shorter than the round trip it saves.
 */
export const SMALL_INDEX_CHUNKS = 1000

export function smallOnMainThread(
  pooled: IndexReader,
  local: ReaderOps,
  chunks: () => number | Promise<number>,
  limit = SMALL_INDEX_CHUNKS,
): IndexReader {
  /**
   * Runs `local` when the index is small, after a turn of the event loop: the calls a search
   * makes to the workers for its other indexes are sent first, so they run while this one
   * holds the main thread, not after it.
   */
  async function either<T>(run: () => Promise<T>, pool: () => Promise<T>): Promise<T> {
    if ((await chunks()) > limit) return pool()
    await yieldToEventLoop()
    return run()
  }
  return {
    ...pooled,
    keyword: (req) =>
      either(
        () => local.keyword(req),
        () => pooled.keyword(req),
      ),
    vector: (req) =>
      either(
        () => local.vector(req),
        () => pooled.vector(req),
      ),
    texts: (ids) =>
      either(
        () => local.texts(ids),
        () => pooled.texts(ids),
      ),
  }
}
