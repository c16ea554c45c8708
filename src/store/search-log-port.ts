/**
 * The search log's side of the storage port (SPEC §12): what an engine keeps of each search
 * (StorageEngine.openSearchLog), for GET /searches, POST /feedback and the console.
 */
import type { MaybePromise } from '../shared/async.js'

/** One search as the search log keeps it (SPEC §12). */
export type SearchLogEntry = {
  requestId: string
  atMs: number
  agent: string
  /** The user the search acted for; null: none. */
  user: string | null
  query: string
  mode: string
  /** Results returned. */
  results: number
  /** The best result's score, or the best one minScore cut; null when nothing matched. */
  bestScore: number | null
  /** Nothing returned although chunks matched: all below minScore. */
  abstained: boolean
  latencyMs: number
  /** The stages that fell back (vector, rerank, expand). */
  degraded: string[]
}

/** A logged search with what an agent said of its results (POST /feedback), if anything. */
export type SearchLogRecord = SearchLogEntry & {
  feedback: { useful: boolean; note: string | null; atMs: number } | null
}

/** Which logged searches: `user` null is those made for no user, absent any user. */
export type SearchLogQuery = {
  agent?: string
  user?: string | null
  sinceMs?: number
  noResults?: boolean
  limit: number
}

/** The search log, shared by every replica of the engine (bounded by prune()). */
export interface SearchLog {
  append(entries: readonly SearchLogEntry[]): MaybePromise<void>
  /** Newest first. */
  list(q: SearchLogQuery): MaybePromise<SearchLogRecord[]>
  /** Records feedback on the searches of a request made by that agent and user; false: none. */
  feedback(f: {
    requestId: string
    agent: string
    user: string | null
    useful: boolean
    note: string | null
    atMs: number
  }): MaybePromise<boolean>
  /** Deletes searches older than `beforeMs`, and each agent's beyond its newest `maxPerAgent`; answers how many. */
  prune(opts: { beforeMs: number; maxPerAgent: number }): MaybePromise<number>
  close(): MaybePromise<void>
}
