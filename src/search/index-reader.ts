/**
 * The read side of the index as the search service sees it: asynchronous, so the same
 * service runs over an in-process store (createLocalReader) or a pool of worker threads
 * that each hold a read-only connection (reader-pool.ts). Everything here is synchronous
 * SQLite work; network calls (embedders, rerankers) stay with the caller.
 */
import type { IndexStore } from '../store/index-store.js'
import { createKeywordSearch, type KeywordFilters, type KeywordHit } from './keyword-search.js'

export type KeywordRequest = { terms: string[]; limit: number; filters: KeywordFilters }

export interface IndexReader {
  /** Best chunks for analysed query terms by BM25 (keyword-search.ts). */
  keyword(req: KeywordRequest): Promise<KeywordHit[]>
  /** Raw texts of chunks by id; an id deleted meanwhile is absent. */
  texts(ids: number[]): Promise<Map<number, string>>
  close(): Promise<void>
}

/** The operations behind IndexReader, synchronously, over one store. */
export function createReaderOps(
  store: Pick<IndexStore, 'keyword' | 'anyMatch' | 'docFreqs' | 'corpusStats' | 'chunkTexts'>,
) {
  const keyword = createKeywordSearch({ store })
  return {
    keyword: (req: KeywordRequest): KeywordHit[] => keyword.search(req.terms, req.limit, req.filters),
    texts: (ids: number[]): Map<number, string> => store.chunkTexts(ids),
  }
}

export type ReaderOps = ReturnType<typeof createReaderOps>

/** Reads on the caller's thread (MNEMO_SEARCH_WORKERS=0). */
export function createLocalReader(store: Parameters<typeof createReaderOps>[0]): IndexReader {
  const ops = createReaderOps(store)
  return {
    keyword: async (req) => ops.keyword(req),
    texts: async (ids) => ops.texts(ids),
    close: async () => undefined,
  }
}
