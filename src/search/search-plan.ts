/**
 * What one search asks of every index it covers (pure): the mode asked for, how many
 * results and candidates, each index's filters (null: the request's pathPrefix leaves the
 * index out), and the analysed query terms.
 */
import type { ChunkFilters, DateRange } from '../domain/chunks.js'
import { appError } from '../shared/errors.js'
import { analyseQuery } from '../text/analyzer.js'
import { dateRangeOf } from './date-range.js'
import type { Space } from '../shared/agent-id.js'
import type { IndexReader } from '../store/index-reader.js'
import { spacePathPrefix } from './search-spaces.js'
import type { SearchMode, SearchRequest } from './types.js'

/** maxResults when a request sets maxTokens and no maxResults: the budget decides (MAX_RESULTS). */
const MAX_RESULTS_BY_TOKENS = 100

/** One index a search covers. */
export type SearchedIndex = {
  space: Space
  /** How this index's paths are shown in results: '' for the agent's own, `team/` for the team's. */
  pathPrefix: string
  /** Whether `scope: "shared"` leaves out this index's MEMORY.md (the agent's private memory). */
  privateMemoryFile: boolean
  reader: Pick<IndexReader, 'keyword' | 'vector' | 'texts'>
  /**
   * False while the index holds vectors of other embedding settings (until the rebuild for
   * the new ones is swapped in): it is then searched by keyword, degraded.
   */
  vectorsReady: () => boolean
  /** Called before each search (the sync trigger's check for changes not yet synced). */
  onSearch: () => void
}

export type PlanSettings = { maxResults: number; minScore: number; maxCandidates: number; candidateMultiplier: number }

export type SearchPlan = {
  requested: SearchMode
  maxResults: number
  minScore: number
  /** Candidates asked of each index and each side (keyword, vector). */
  limit: number
  targets: { target: SearchedIndex; filters: ChunkFilters | null }[]
  terms: string[]
  names: boolean[]
}

/** The request's time range; a bad bound is a 400 (also for MCP calls, which skip the HTTP schema's checks). */
function rangeOf(req: SearchRequest): DateRange | undefined {
  try {
    return dateRangeOf(req)
  } catch (err) {
    if (err instanceof RangeError) throw appError('VALIDATION_FAILED', err.message)
    throw err
  }
}

export function planSearch(req: SearchRequest, targets: readonly SearchedIndex[], settings: PlanSettings): SearchPlan {
  const requested: SearchMode = req.mode ?? 'hybrid'
  // An agent that sets a token budget and no count wants as many results as the budget holds.
  const maxResults = req.maxResults ?? (req.maxTokens === undefined ? settings.maxResults : MAX_RESULTS_BY_TOKENS)
  const onlySource = req.sources && new Set(req.sources).size === 1 ? req.sources[0] : undefined
  const dated = rangeOf(req)
  const { terms, names } = requested === 'vector' ? { terms: [], names: [] } : analyseQuery(req.query)
  return {
    requested,
    maxResults,
    minScore: req.minScore ?? settings.minScore,
    limit: Math.min(settings.maxCandidates, maxResults * settings.candidateMultiplier),
    targets: targets.map((target) => {
      const prefix = spacePathPrefix(req.pathPrefix, target.pathPrefix)
      const filters = prefix && {
        pathPrefix: prefix.pathPrefix,
        source: onlySource,
        excludeMemoryFile: req.scope === 'shared' && target.privateMemoryFile,
        dated,
        includeSuperseded: req.includeSuperseded === true,
        origins: req.origins,
      }
      return { target, filters }
    }),
    terms,
    names,
  }
}
