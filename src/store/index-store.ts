/**
 * The index store owns a SQLite connection. Services call its methods and never hold a raw
 * connection, so the connection can be replaced (rebuild swap) without re-wiring them. The
 * writer store (one per process) creates the schema and runs write transactions; read-only
 * stores serve the search workers. Term statistics (document frequencies, corpus size) are
 * cached per index generation: the writer starts a new one with each transaction, a reader
 * whenever SQLite's data_version shows another connection committed.
 */
import fs from 'node:fs'
import path from 'node:path'
import { createChunksRepo, type ChunksRepo } from './chunks-repo.js'
import { openDatabase, type Db } from './database.js'
import { checkSchema, ensureSchema } from './schema.js'
import { createSearchRepo, type SearchRepo } from './search-repo.js'
import { createVectorRepo, type VectorRepo } from './vector-repo.js'
import { ensureVectorTable, storedVectorConfig, type VectorConfig } from './vector-schema.js'

export type IndexStoreOptions = {
  /** Path of the SQLite file; the writer creates it and its directory when missing. */
  dbPath: string
  /** Open an existing index read-only (search workers); its vector config is read from it. */
  readonly?: boolean
  /** How vectors are stored (writer only; null: no embeddings). */
  vectors?: VectorConfig
  /** Loads sqlite-vec into a connection; called when the vector backend is sqlite-vec. */
  loadVectorExtension?: (db: Db) => void
}

/** BM25 corpus statistics: chunk count and mean terms per chunk (both columns). */
export type CorpusStats = { rows: number; avgTokens: number }

/** Distinct terms whose document frequency is remembered per generation. */
const DOC_FREQ_CACHE_SIZE = 50_000

function removeIndexFiles(dbPath: string): void {
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${dbPath}${suffix}`, { force: true })
}

/**
 * Opens the writer connection with the schema and the vector table for `vectors`. An index
 * of another schema version, or whose vector table cannot be converted, is deleted and
 * created anew: the index is a cache of the workspace files.
 */
function openWriter(opts: IndexStoreOptions): { db: Db; recreated: boolean } {
  fs.mkdirSync(path.dirname(opts.dbPath), { recursive: true })
  const vectors = opts.vectors ?? null
  for (let attempt = 0; ; attempt++) {
    const db = openDatabase(opts.dbPath)
    try {
      if (vectors?.backend === 'sqlite-vec') opts.loadVectorExtension?.(db)
      if (!ensureSchema(db)) throw new Error('index written by another schema version')
      ensureVectorTable(db, vectors)
      return { db, recreated: attempt > 0 }
    } catch (err) {
      db.close()
      if (attempt > 0) throw err
      removeIndexFiles(opts.dbPath)
    }
  }
}

function openReader(opts: IndexStoreOptions): { db: Db; vectors: VectorConfig } {
  const db = openDatabase(opts.dbPath, { readonly: true })
  checkSchema(db)
  const vectors = storedVectorConfig(db)
  if (vectors?.backend === 'sqlite-vec') opts.loadVectorExtension?.(db)
  return { db, vectors }
}

export function createIndexStore(opts: IndexStoreOptions) {
  const readonly = opts.readonly ?? false
  const opened = readonly
    ? { ...openReader(opts), recreated: false }
    : { ...openWriter(opts), vectors: opts.vectors ?? null }
  const db: Db = opened.db
  const vectorRepo: VectorRepo = createVectorRepo(db, opened.vectors)
  const repo: ChunksRepo = createChunksRepo(db, vectorRepo)
  const reads: SearchRepo = createSearchRepo(db)
  let open = true
  let commits = 0
  let cachedGeneration = -1
  let corpus: CorpusStats | null = null
  const docFreqs = new Map<string, number>()

  /** The writer counts its own commits; a reader asks SQLite whether others committed. */
  const generation = (): number => (readonly ? (db.pragma('data_version', { simple: true }) as number) : commits)

  /** Empties the term-statistics caches when the index changed since they were filled. */
  function freshCaches(): void {
    const current = generation()
    if (current === cachedGeneration) return
    cachedGeneration = current
    corpus = null
    docFreqs.clear()
  }

  return {
    /** True when an incompatible older index was deleted at open. */
    recreated: opened.recreated,
    /** How vectors are stored, or null without embeddings. */
    vectors: opened.vectors,
    isOpen: () => open,
    /** Increases whenever the index changed (writer commits, or others' commits for a reader). */
    generation,
    /** Runs `fn` in one write transaction; readers see all of it or nothing. */
    transaction<T>(fn: (r: ChunksRepo) => T): T {
      const result = db.transaction(() => fn(repo))()
      commits++
      return result
    },
    listFiles: repo.listFiles,
    keyword: reads.keyword,
    anyMatch: reads.anyMatch,
    chunkTexts: reads.chunkTexts,
    chunkHeads: reads.chunkHeads,
    knn: vectorRepo.knn,
    allVectors: vectorRepo.all,
    counts: repo.counts,
    getMeta: repo.getMeta,
    pendingVectors: repo.pendingVectors,
    pendingVectorCount: repo.pendingVectorCount,
    /** Chunks containing each term (from the FTS5 vocabulary), cached per generation. */
    docFreqs(terms: readonly string[]): number[] {
      freshCaches()
      if (docFreqs.size > DOC_FREQ_CACHE_SIZE) docFreqs.clear()
      return terms.map((term) => {
        let df = docFreqs.get(term)
        if (df === undefined) {
          df = reads.docFreq(term)
          docFreqs.set(term, df)
        }
        return df
      })
    },
    corpusStats(): CorpusStats {
      freshCaches()
      if (!corpus) {
        const { rows, tokens } = reads.corpus()
        corpus = { rows, avgTokens: rows > 0 ? tokens / rows : 0 }
      }
      return corpus
    },
    close(): void {
      if (!open) return
      open = false
      db.close()
    },
  }
}

export type IndexStore = ReturnType<typeof createIndexStore>
