/**
 * The read side of the index as the search service sees it: asynchronous, so the same
 * service runs over an in-process store (createLocalReader) or a pool of worker threads
 * that each hold a read-only connection (reader-pool.ts). Everything here is synchronous
 * SQLite work; network calls (embedders, rerankers) stay with the caller.
 */
import type { IndexStore } from '../store/index-store.js'
import type { ChunkFilters } from '../domain/chunks.js'
import { createKeywordSearch, type KeywordHit } from './keyword-search.js'
import { createVectorSearch, type VectorHit } from './vector-search.js'

export type KeywordRequest = {
  terms: string[]
  /** Whether each term was written as a name (analyzer.ts analyseQuery); default none. */
  names?: boolean[] | undefined
  limit: number
  filters: ChunkFilters
}
export type VectorRequest = {
  vector: Float32Array
  limit: number
  filters: ChunkFilters
  /** Search only these shards (the pool splits a search over its workers); default all. */
  shards?: number[] | undefined
}

export interface IndexReader {
  /** Best chunks for analysed query terms by BM25 (keyword-search.ts). */
  keyword(req: KeywordRequest): Promise<KeywordHit[]>
  /** Nearest chunks to a query vector (vector-search.ts). */
  vector(req: VectorRequest): Promise<VectorHit[]>
  /** Raw texts of chunks by id; an id deleted meanwhile is absent. */
  texts(ids: number[]): Promise<Map<number, string>>
  /** Closes every connection to the index file other than the writer's, holding new calls. */
  suspend(): Promise<void>
  /** Reopens them after the file was replaced and lets held calls through. */
  resume(): void
  close(): Promise<void>
}

export type ReaderStore = Pick<
  IndexStore,
  | 'keyword'
  | 'anyMatch'
  | 'partial'
  | 'docFreqs'
  | 'corpusStats'
  | 'chunkTexts'
  | 'chunkHeads'
  | 'vectors'
  | 'knn'
  | 'allVectors'
  | 'generation'
>

/** The operations behind IndexReader, synchronously, over one store. */
export function createReaderOps(store: ReaderStore) {
  const keyword = createKeywordSearch({ store })
  const vector = createVectorSearch(store)
  return {
    keyword: (req: KeywordRequest): KeywordHit[] => keyword.search(req.terms, req.limit, req.filters, req.names),
    vector: (req: VectorRequest): VectorHit[] => vector.search(req.vector, req.limit, req.filters, req.shards),
    texts: (ids: number[]): Map<number, string> => store.chunkTexts(ids),
  }
}

export type ReaderOps = ReturnType<typeof createReaderOps>

/** Reads on the caller's thread (MNEMO_SEARCH_WORKERS=0). */
export function createLocalReader(store: ReaderStore): IndexReader {
  const ops = createReaderOps(store)
  return {
    keyword: async (req) => ops.keyword(req),
    vector: async (req) => ops.vector(req),
    texts: async (ids) => ops.texts(ids),
    // The caller's store is the writer itself, which the swap reopens.
    suspend: async () => undefined,
    resume: () => undefined,
    close: async () => undefined,
  }
}
