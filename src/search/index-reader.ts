/**
 * The searches of one index over its reads (store/index-reader.ts ReaderOps): what an
 * engine's reader runs, in process or on SQLite's read threads (the composition root gives
 * this factory to the engine).
 */
import { samePlace } from '../domain/chunks.js'
import type { SpaceReads } from '../store/port.js'
import { inProcessReader, type IndexReader, type KeywordRequest, type ReaderOps } from '../store/index-reader.js'
import { createKeywordSearch } from './keyword-search.js'
import { createVectorSearch } from './vector-search.js'

export function createReaderOps(store: SpaceReads): ReaderOps {
  const keyword = createKeywordSearch({ store })
  const vector = createVectorSearch(store)
  return {
    async keyword(req: KeywordRequest) {
      const n = req.texts ?? 0
      // An engine that read texts with the candidates (PostgreSQL) leaves none to read here.
      const found = await keyword.search(req.terms, req.limit, req.filters, req.names, n > 0)
      // Body terms go with texts only: past the n-th, a hit without its text is sent without them.
      const hits = found.map((h, i) =>
        i < n || h.text !== undefined || h.bodyTerms === undefined ? h : { ...h, bodyTerms: undefined },
      )
      const missing = hits.slice(0, n).filter((h) => h.text === undefined)
      if (missing.length === 0) return hits
      const texts = await store.chunkTexts(missing.map((h) => h.id))
      return hits.map((h, i) => {
        const read = i < n && h.text === undefined ? texts.get(h.id) : undefined
        // Another place's text (a rebuild swapped in between the two reads): read again later.
        return read && samePlace(read, h) ? { ...h, text: read.text, bodyTerms: read.bodyTerms } : h
      })
    },
    vector: (req) => vector.search(req.vector, req.limit, req.filters, req.shards),
    texts: async (ids) => store.chunkTexts(ids),
  }
}

/** Reads on the caller's thread (tests, and benchmarks of one index). */
export const createLocalReader = (store: SpaceReads): IndexReader => inProcessReader(createReaderOps(store))
