/** What a sync or rebuild did, as the status and the log report it. */
export type SyncResult = {
  full: boolean
  reason: string
  scanned: number
  indexed: number
  unchanged: number
  deleted: number
  skipped: number
  chunks: number
  /** Transcript lines that were not JSON objects (skipped). */
  malformedLines: number
  /** Files and folders the service may not read (permissions): skipped, each logged. */
  unreadable: number
  errors: { path: string; error: string }[]
  /** Texts sent to the embedding provider, and vectors taken from the cache. */
  embedded: number
  embedCacheHits: number
  embeddingTokens: number
  /** Chunks still waiting for a vector after this sync. */
  vectorsPending: number
  /** Why embedding stopped (the chunks stay searchable by keyword meanwhile). */
  embedError?: string
  durationMs: number
}

/** A sync result with every count at zero. */
export function emptySyncResult(full: boolean, reason: string): SyncResult {
  return {
    full,
    reason,
    scanned: 0,
    indexed: 0,
    unchanged: 0,
    deleted: 0,
    skipped: 0,
    chunks: 0,
    malformedLines: 0,
    unreadable: 0,
    errors: [],
    embedded: 0,
    embedCacheHits: 0,
    embeddingTokens: 0,
    vectorsPending: 0,
    durationMs: 0,
  }
}
