/**
 * The searches of one index over its reads (store/index-reader.ts ReaderOps): what an
 * engine's reader runs, in process or on SQLite's read threads (the composition root gives
 * this factory to the engine).
 */
import type { SpaceReads } from '../store/port.js'
import { inProcessReader, type IndexReader, type KeywordRequest, type ReaderOps } from '../store/index-reader.js'
import { createKeywordSearch } from './keyword-search.js'
import { createVectorSearch } from './vector-search.js'

export function createReaderOps(store: SpaceReads): ReaderOps {
  const keyword = createKeywordSearch({ store })
  const vector = createVectorSearch(store)
  return {
    async keyword(req: KeywordRequest) {
      const hits = await keyword.search(req.terms, req.limit, req.filters, req.names)
      const n = Math.min(req.texts ?? 0, hits.length)
      if (n === 0) return hits
      const texts = await store.chunkTexts(hits.slice(0, n).map((h) => h.id))
      return hits.map((h, i) => (i < n ? { ...h, text: texts.get(h.id) } : h))
    },
    vector: (req) => vector.search(req.vector, req.limit, req.filters, req.shards),
    texts: async (ids) => store.chunkTexts(ids),
  }
}

/** Reads on the caller's thread (tests, and benchmarks of one index). */
export const createLocalReader = (store: SpaceReads): IndexReader => inProcessReader(createReaderOps(store))
