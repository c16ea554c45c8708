/**
 * Who reads which logged searches, and who may say whether one helped (SPEC §12). The
 * admin not acting for an agent reads every agent's (filtered by `agent`, `user`); anyone
 * else reads its own agent's only, and only the searches made for the user it acts for —
 * or, acting for no user, those made for none: a user's queries are its own, like its
 * memory (SPEC §11). Feedback applies to the searches of one request made by the same
 * agent and user; any other request id is 404 SEARCH_NOT_FOUND, whether it exists or not.
 */
import { appError } from '../shared/errors.js'
import type { SearchLogQuery, SearchLogRecord } from '../store/search-log-port.js'
import type { SearchRecorder } from './search-recorder.js'

/** The caller as the routes know it. */
export type LogReader = { admin: boolean; agentNamed: boolean; agent: string; user: string | null }

export type SearchesFilter = { agent?: string; user?: string; sinceMs?: number; noResults?: boolean; limit: number }

const iso = (ms: number) => new Date(ms).toISOString()

/** A logged search as GET /searches shows it. */
function shown(r: SearchLogRecord) {
  const { atMs, feedback, ...rest } = r
  return {
    ...rest,
    time: iso(atMs),
    feedback: feedback && { useful: feedback.useful, note: feedback.note, time: iso(feedback.atMs) },
  }
}

export function createSearchLogService(deps: {
  recorder: Pick<SearchRecorder, 'list' | 'feedback'> | null
  onFeedback?: (useful: boolean) => void
  now?: () => number
}) {
  const now = deps.now ?? Date.now
  const recorder = () => {
    if (!deps.recorder) throw appError('SEARCH_LOG_OFF')
    return deps.recorder
  }

  /** The store query `who` may make with `filter`; 403 for an agent or user it may not read. */
  function scopeOf(who: LogReader, filter: SearchesFilter): SearchLogQuery {
    const base = {
      limit: filter.limit,
      ...(filter.sinceMs !== undefined && { sinceMs: filter.sinceMs }),
      ...(filter.noResults && { noResults: true }),
    }
    if (who.admin && !who.agentNamed && who.user === null) {
      return {
        ...base,
        ...(filter.agent !== undefined && { agent: filter.agent }),
        ...(filter.user !== undefined && { user: filter.user }),
      }
    }
    if (filter.agent !== undefined && filter.agent !== who.agent) {
      throw appError('AGENT_FORBIDDEN', 'This request reads the searches of the agent it acts for only')
    }
    if (filter.user !== undefined && filter.user !== who.user && !who.admin) {
      throw appError('USER_FORBIDDEN', 'This request reads the searches of the user it acts for only')
    }
    const user = who.admin && filter.user !== undefined ? filter.user : who.user
    return { ...base, agent: who.agent, user }
  }

  return {
    async list(who: LogReader, filter: SearchesFilter) {
      const q = scopeOf(who, filter)
      return { searches: (await recorder().list(q)).map(shown) }
    },
    async feedback(
      who: { agent: string; user: string | null },
      body: { requestId: string; useful: boolean; note?: string | undefined },
    ) {
      const found = await recorder().feedback({
        requestId: body.requestId,
        agent: who.agent,
        user: who.user,
        useful: body.useful,
        note: body.note ?? null,
        atMs: now(),
      })
      if (!found) throw appError('SEARCH_NOT_FOUND')
      deps.onFeedback?.(body.useful)
      return { requestId: body.requestId, useful: body.useful }
    },
  }
}

export type SearchLogService = ReturnType<typeof createSearchLogService>
