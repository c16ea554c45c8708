/**
 * The read side of the index as the search service sees it: asynchronous, so the same
 * service runs over an in-process store (createLocalReader) or a pool of worker threads
 * that each hold a read-only connection (reader-pool.ts). Everything here is index work;
 * network calls (embedders, rerankers) stay with the caller.
 */
import type { ChunkFilters } from '../domain/chunks.js'
import type { SpaceReads } from '../store/port.js'
import { createKeywordSearch, type KeywordHit } from './keyword-search.js'
import { createVectorSearch, type VectorHit } from './vector-search.js'

export type KeywordRequest = {
  terms: string[]
  /** Whether each term was written as a name (analyzer.ts analyseQuery); default none. */
  names?: boolean[] | undefined
  limit: number
  filters: ChunkFilters
  /**
   * Also read the raw texts of the best this many hits (default 0): a search that ranks by
   * keyword alone needs them next, and reading them here saves a second trip to a search
   * worker (about 0.1 ms of /search latency on 2 busy cores, issue 19).
   */
  texts?: number | undefined
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

/** The operations behind IndexReader over one store's reads (store/port.ts). */
export function createReaderOps(store: SpaceReads) {
  const keyword = createKeywordSearch({ store })
  const vector = createVectorSearch(store)
  return {
    keyword: async (req: KeywordRequest): Promise<KeywordHit[]> => {
      const hits = await keyword.search(req.terms, req.limit, req.filters, req.names)
      const n = Math.min(req.texts ?? 0, hits.length)
      if (n === 0) return hits
      const texts = await store.chunkTexts(hits.slice(0, n).map((h) => h.id))
      return hits.map((h, i) => (i < n ? { ...h, text: texts.get(h.id) } : h))
    },
    vector: (req: VectorRequest): Promise<VectorHit[]> => vector.search(req.vector, req.limit, req.filters, req.shards),
    texts: async (ids: number[]): Promise<Map<number, string>> => store.chunkTexts(ids),
  }
}

export type ReaderOps = ReturnType<typeof createReaderOps>

/** Reads on the caller's thread (MNEMO_SEARCH_WORKERS=0, or an engine read over the network). */
export function createLocalReader(store: SpaceReads): IndexReader {
  const ops = createReaderOps(store)
  return {
    ...ops,
    // The caller's store is the writer itself, which the swap reopens.
    suspend: async () => undefined,
    resume: () => undefined,
    close: async () => undefined,
  }
}
