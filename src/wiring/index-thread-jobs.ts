/**
 * The jobs SQLite's read threads run for the indexers (index-thread.ts), by name, and how an
 * indexer asks for them (preparerOf).
 */
import { NEVER_YIELD } from '../indexing/chunker.js'
import { readAndPrepare, type PrepareElsewhere, type ReadThereInput } from '../indexing/read-there.js'
import type { OffThread } from '../store/index-reader.js'

export const indexThreadJobs = {
  /** Read a file, chunk and analyse it; no slicing: a thread holds up no one's event loop but its own. */
  prepare: (input: ReadThereInput) => readAndPrepare(input, NEVER_YIELD),
}

/** Where a space's indexer reads and prepares new files: on the engine's threads, when it has them. */
export const preparerOf = (offThread: OffThread | undefined): PrepareElsewhere | undefined =>
  offThread && ((input, local, background) => offThread('prepare', [input], local, background))
