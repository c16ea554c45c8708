/** Search request and response types of the service layer (SPEC §3). */
import type { Source } from '../domain/chunks.js'
import type { EntryStatus, Origin } from '../domain/entry-meta.js'
import type { Space } from '../shared/agent-id.js'
import type { DegradedCode, DegradedStage } from './degraded.js'

export type SearchMode = 'hybrid' | 'keyword' | 'vector'

export type SearchRequest = {
  query: string
  maxResults?: number | undefined
  /**
   * Bytes of snippets the answer may carry (default MNEMO_SNIPPET_BYTES_PER_SEARCH). Not a
   * request field: the calls of one MCP batch share one request's budget (memory-backend.ts).
   */
  snippetBytes?: number | undefined
  minScore?: number | undefined
  mode?: SearchMode | undefined
  rerank?: boolean | undefined
  sources?: Source[] | undefined
  pathPrefix?: string | undefined
  scope?: 'private' | 'shared' | undefined
  /** Spaces to search (default: the agent's own and, when configured, the team's). */
  spaces?: Space[] | undefined
  /** Time range (date-range.ts): ISO date or date-time bounds, after inclusive, before exclusive. */
  after?: string | undefined
  before?: string | undefined
  /** Leave undated notes (MEMORY.md) out. */
  datedOnly?: boolean | undefined
  /** Token budget of the snippets returned (token-budget.ts). */
  maxTokens?: number | undefined
  /** Temporal decay half-life in days, 0 = none (recency.ts). */
  halfLifeDays?: number | undefined
  /** Diversify results (mmr.ts), with λ. */
  mmr?: boolean | undefined
  mmrLambda?: number | undefined
  /** Fuse in the query's lex/vec/hyde variants (expand/query-expansion.ts); default MNEMO_SEARCH_EXPAND. */
  expand?: boolean | undefined
  /** Superseded entries too (default: current facts only). */
  includeSuperseded?: boolean | undefined
  /** Only entries with one of these origins. */
  origins?: Origin[] | undefined
}

export type SearchHit = {
  path: string
  startLine: number
  endLine: number
  snippet: string
  /**
   * Final score in [0, 1]: textScore by keyword, the weighted mean of textScore and
   * vectorScore in hybrid, rerankScore when reranked; times the decay when halfLifeDays is
   * set. Results are sorted by it (MMR may reorder).
   */
  score: number
  /** How much of the query the chunk holds, in [0, 1) (scores.ts); 0 when keyword search did not return the chunk. */
  textScore: number
  /** 1 − cosine distance; 0 when vector search did not return the chunk. */
  vectorScore: number
  rerankScore?: number
  /** The temporal decay factor the score was multiplied by, in (0, 1]; only with halfLifeDays > 0. */
  recency?: number
  source: Source
  /** The agent's own memory, or the team's (paths under team/). */
  space: Space
  /** The chunk's entry (domain/entry-meta.ts): active outside any entry, the rest null there. */
  status: EntryStatus
  observed: string | null
  key: string | null
  origin: Origin | null
}

export type SearchResponse = {
  results: SearchHit[]
  /** The mode that actually ran (a hybrid request without an embedder runs as keyword). */
  mode: SearchMode
  /**
   * Results whose snippet was shortened or left empty to keep the answer within
   * MNEMO_SNIPPET_BYTES_PER_SEARCH; absent when none was.
   */
  snippetsShortened?: number
  /** Why each stage that fell back did, for people; absent when none did. */
  degraded?: Partial<Record<DegradedStage, string>>
  /** The same stages' reasons as stable codes (degraded.ts); present exactly when `degraded` is. */
  degradedCodes?: Partial<Record<DegradedStage, DegradedCode>>
  /** The id the search log keeps it under (POST /feedback); absent when it is not logged. */
  requestId?: string
  /**
   * No result passed minScore although chunks matched: the best of them, and the minScore
   * that cut it. Absent when a result is returned, or nothing matched.
   */
  abstained?: { bestScore: number; minScore: number }
  /** Provider tokens this search cost, and the estimated tokens of the snippets it returns. */
  usage: { embeddingTokens: number; rerankTokens: number; resultTokens: number }
  timingsMs: { keyword: number; embed: number; vector: number; rerank: number; total: number }
}
