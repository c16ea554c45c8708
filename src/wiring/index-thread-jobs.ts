/**
 * The jobs SQLite's read threads run for the indexers (index-thread.ts), by name, and how an
 * indexer asks for them (preparerOf).
 */
import { NEVER_YIELD, type ChunkOptions } from '../indexing/chunker.js'
import { prepareText, type FileInput, type PrepareElsewhere } from '../indexing/prepare-file.js'
import type { OffThread } from '../store/index-reader.js'

export const indexThreadJobs = {
  /** Chunk and analyse a file's text; no slicing: a thread holds up no one's event loop but its own. */
  prepare: (input: FileInput, chunking: ChunkOptions) => prepareText(input, chunking, NEVER_YIELD),
}

/** Where a space's indexer prepares big new files: on the engine's threads, when it has them. */
export const preparerOf = (offThread: OffThread | undefined): PrepareElsewhere | undefined =>
  offThread && ((input, chunking, local, background) => offThread('prepare', [input, chunking], local, background))
