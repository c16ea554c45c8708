/**
 * The read side of one space's index as searches see it: asynchronous, so the same search
 * runs over an in-process store or over an engine's own threads (SQLite's read threads,
 * store/sqlite/threads). Each engine hands out a space's reader (StorageEngine.readerFor).
 * What a keyword or vector search does is the search pipeline's (search/index-reader.ts
 * createReaderOps); the composition root gives it to the engine (port.ts ReadOpsFactory).
 * Everything here is index work; network calls (embedders, rerankers) stay with the caller.
 */
import type { ChunkFilters, ChunkHead, LocatedText } from '../domain/chunks.js'

export type KeywordRequest = {
  terms: string[]
  /** Whether each term was written as a name (analyzer.ts analyseQuery); default none. */
  names?: boolean[] | undefined
  limit: number
  filters: ChunkFilters
  /**
   * Also read the raw texts of at least the best this many hits (default 0): a search that
   * ranks by keyword alone needs them next, and reading them here saves a second trip to a
   * read thread (about 0.1 ms of /search latency on 2 busy cores, issue 19). An engine that
   * reads texts with its candidates (PostgreSQL) gives every hit its text.
   */
  texts?: number | undefined
}

export type VectorRequest = {
  vector: Float32Array
  limit: number
  filters: ChunkFilters
  /** Search only these shards (the read threads split a search over themselves); default all. */
  shards?: number[] | undefined
}

export type KeywordHit = ChunkHead & {
  textScore: number
  text?: string | undefined
  /**
   * Its body terms by line (text/line-terms.ts), beside its text: the snippet finds the line
   * to show from them instead of analysing the text again (search/snippet.ts).
   */
  bodyTerms?: string | undefined
}
export type VectorHit = ChunkHead & { vectorScore: number }

/** The searches of one index, wherever they run. */
export type ReaderOps = {
  /** Best chunks for analysed query terms by BM25 (search/keyword-search.ts). */
  keyword(req: KeywordRequest): Promise<KeywordHit[]>
  /** Nearest chunks to a query vector (search/vector-search.ts). */
  vector(req: VectorRequest): Promise<VectorHit[]>
  /** Raw texts of chunks, their body terms and places by id; an id deleted meanwhile is absent. */
  texts(ids: number[]): Promise<Map<number, LocatedText>>
}

export interface IndexReader extends ReaderOps {
  /** Closes every connection to the index file other than the writer's, holding new calls. */
  suspend(): Promise<void>
  /** Reopens them after the file was replaced and lets held calls through. */
  resume(): void
  close(): Promise<void>
}

/**
 * Work an engine may run for a space off the main thread (SQLite's read threads prepare big
 * files for the indexer there), by job name; `local` runs it in place when no thread can,
 * and a `background` job gives way to searches.
 */
export type OffThread = <T>(job: string, args: unknown[], local: () => Promise<T>, background: boolean) => Promise<T>

/** A reader on the caller's thread: PostgreSQL's, or SQLite's without read threads. */
export const inProcessReader = (ops: ReaderOps): IndexReader => ({
  ...ops,
  // The caller's store is the writer itself, which a rebuild's swap reopens.
  suspend: async () => undefined,
  resume: () => undefined,
  close: async () => undefined,
})
