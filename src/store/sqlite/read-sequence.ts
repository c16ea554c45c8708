/**
 * Orders file reads across everything that indexes (syncs, the write API, a rebuild): each
 * read takes the next number before it starts, and the index keeps a file's row from the
 * highest number it has seen (chunks-repo.ts). A slow sync that read a file before an API
 * write can then never overwrite the write's newer chunks when it commits later. Numbers
 * continue from the highest one stored in the index, so they keep growing across restarts.
 * An engine shared by several processes numbers reads in the database instead.
 */
import type { ReadSequence } from '../port.js'

/** Numbers reads in this process, after `start` (the highest number the index holds). */
export function createReadSequence(start: number): ReadSequence {
  let last = start
  return { next: () => ++last }
}
