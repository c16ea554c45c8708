/**
 * The storage port: what the rest of mnemo asks of an index, whatever engine holds it
 * (SQLite in this folder; PostgreSQL per SPEC §10). Engines return MaybePromise so SQLite
 * answers synchronously inside (better-sqlite3) while a networked engine answers later;
 * callers always await. Ranking (BM25 scores, merge, rerank) is not here: engines return
 * candidates and the statistics search/ needs to score them.
 */
import type { ChunkFilters, ChunkHead } from '../domain/chunks.js'

export type MaybePromise<T> = T | Promise<T>

/** A chunk found near a query vector: its head and cosine distance (0 = same direction). */
export type Neighbour = ChunkHead & { distance: number }

/** Nearest-neighbour search over one index's vectors (sqlite-vec, exact scan, pgvector). */
export interface VectorIndex {
  /**
   * The `k` visible chunks nearest to `vector` that pass the filters, nearest first (ties by
   * id). `shards`: search only these shards of the index, so a search can be split over
   * several readers; engines without shards ignore it.
   */
  nearest(vector: Float32Array, k: number, filters: ChunkFilters, shards?: readonly number[]): MaybePromise<Neighbour[]>
}

/** A keyword query: analysed terms (text/analyzer.ts), never raw user text. */
export type KeywordQuery = ChunkFilters & {
  /** A chunk holding any of these terms is a candidate. */
  terms: readonly string[]
  limit: number
  /** BM25 weight of the heading column relative to the body (1.0), for the engine's ranking. */
  headingWeight: number
}

/** A keyword candidate: its head and its analysed terms, which search/ scores. */
export type KeywordCandidate = ChunkHead & {
  /** The chunk's body terms, space-separated. */
  bodyTerms: string
  /** The terms of its headings and file path, space-separated. */
  headingTerms: string
}

/** BM25 corpus statistics: chunk count and mean terms per chunk (both columns). */
export type CorpusStats = { rows: number; avgTokens: number }

/** Keyword candidates and the statistics BM25 needs, over one index. */
export interface KeywordIndex {
  /**
   * The `limit` candidates ranked best by the engine's BM25 over the query terms, best
   * first; search/ scores them again on every term of the query.
   */
  candidates(q: KeywordQuery): MaybePromise<KeywordCandidate[]>
  /** Up to `limit` of the most recently written chunks holding any term, unranked. */
  newestMatches(q: KeywordQuery): MaybePromise<KeywordCandidate[]>
  /** Chunks containing each term (0 when unknown), in the order of `terms`. */
  docFreqs(terms: readonly string[]): MaybePromise<number[]>
  corpusStats(): MaybePromise<CorpusStats>
  /**
   * Whether a change is half written (a big file staged over many transactions): the
   * statistics then count chunks no search can see yet or any more.
   */
  partial(): MaybePromise<boolean>
}

/** What a search reads from one index. */
export interface SpaceReads extends KeywordIndex, VectorIndex {
  /** Raw chunk texts by id; an id deleted meanwhile is absent. */
  chunkTexts(ids: readonly number[]): MaybePromise<Map<number, string>>
}
