import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pino from 'pino'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config/load-config.js'
import { prepareFile } from '../indexing/prepare-file.js'
import { createIndexStore } from '../store/sqlite/index-store.js'
import type { IndexReader } from '../store/index-reader.js'
import { createLocalReader } from './index-reader.js'
import type { SearchedIndex } from './search-plan.js'
import { createSearchService } from './search-service.js'

const CHUNKING = { maxTokens: 60, overlapTokens: 10 }
const slicer = { maybeYield: async () => undefined }

describe('a keyword search', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-search-service-'))
  const store = createIndexStore({ dbPath: path.join(dir, 'index.sqlite') })
  afterAll(() => {
    store.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })
  const config = loadConfig({ MNEMO_WORKSPACE: dir }, dir)
  const serviceOf = () =>
    createSearchService({
      embedder: null,
      reranker: null,
      settings: config.search,
      rerank: config.rerank,
      log: pino({ level: 'silent' }),
    })
  const targetOf = (reader: SearchedIndex['reader']): SearchedIndex => ({
    space: 'agent',
    pathPrefix: '',
    privateMemoryFile: true,
    reader,
    vectorsReady: () => false,
    onSearch: () => undefined,
  })

  it('reads the texts of its results with its hits, in one call to the reader', async () => {
    const notes = Array.from({ length: 8 }, (_, i) => `## note ${i}\nwalrus ${'tusk '.repeat(i + 1)}ice`).join('\n\n')
    const file = await prepareFile(
      { rel: 'memory/a.md', text: notes, sha256: 'x', sizeBytes: 1, mtimeMs: 0, indexedAtMs: 0, readSeq: 1 },
      CHUNKING,
      slicer,
    )
    store.transaction((r) => r.replaceFile(file.record, file.chunks))
    const local = createLocalReader(store)
    const calls: string[] = []
    const reader: Pick<IndexReader, 'keyword' | 'vector' | 'texts'> = {
      keyword: (req) => (calls.push('keyword'), local.keyword(req)),
      vector: (req) => (calls.push('vector'), local.vector(req)),
      texts: (ids) => (calls.push('texts'), local.texts(ids)),
    }
    const target = targetOf(reader)
    const service = serviceOf()

    const res = await service.search({ query: 'walrus tusk', maxResults: 3, minScore: 0 }, [target])

    expect(res.results).toHaveLength(3)
    expect(res.results.every((r) => r.snippet.includes('walrus'))).toBe(true)
    expect(calls).toEqual(['keyword'])
  })

  it("leaves out a hit whose text, read after it was found, is another place's (a rebuild swapped in meanwhile)", async () => {
    const local = createLocalReader(store)
    /** Hits without their texts, so the service reads them after ranking. */
    const bare: IndexReader['keyword'] = async (req) =>
      (await local.keyword(req)).map(({ text: _text, bodyTerms: _terms, ...hit }) => hit)
    const service = serviceOf()
    const search = (texts: IndexReader['texts']) => {
      const reader: Pick<IndexReader, 'keyword' | 'vector' | 'texts'> = {
        keyword: bare,
        vector: (req) => local.vector(req),
        texts,
      }
      const target = targetOf(reader)
      return service.search({ query: 'walrus tusk', maxResults: 3, minScore: 0 }, [target])
    }
    const whole = await search((ids) => local.texts(ids))
    expect(whole.results).toHaveLength(3)
    // The best hit's id now names a chunk elsewhere: the id of another chunk, with its text.
    const swapped = await search(async (ids) => {
      const read = await local.texts(ids)
      const [first, second] = ids as [number, number]
      read.set(first, read.get(second)!)
      return read
    })
    expect(swapped.results.map((r) => r.startLine)).toEqual(whole.results.slice(1).map((r) => r.startLine))
    expect(swapped.results.every((r) => r.snippet.includes('walrus'))).toBe(true)
  })
})
