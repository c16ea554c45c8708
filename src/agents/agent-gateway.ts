/**
 * What a request acting as one agent may do (SPEC §8), for the REST routes and the MCP
 * tools alike: search its own memory and the team's, read and write its own files (and
 * the team's, under `team/`), flush, and sync its index. Every call names the agent; the
 * registry opens its space and holds it for the call, so nothing here can reach another
 * agent's files: paths are resolved inside the agent's (or the team's) folder only.
 */
import type { FileWindow } from '../files/file-service.js'
import { notesOf, type FlushRequest } from '../files/flush-service.js'
import { createMemoryPaths } from '../files/memory-paths.js'
import type { Precondition } from '../files/preconditions.js'
import { checkWritablePath, type WriteResult } from '../files/write-service.js'
import type { SearchService, SearchTarget } from '../search/search-service.js'
import type { SearchRequest } from '../search/types.js'
import { appError } from '../shared/errors.js'
import type { AgentRegistry } from './agent-registry.js'
import type { AgentSpace } from './agent-space.js'
import { MAIN_AGENT, TEAM_PREFIX, type Space } from '../shared/agent-id.js'
import { spaceSummary } from './agent-summary.js'

export type AgentGatewayDeps = {
  registry: Pick<AgentRegistry, 'use' | 'list'>
  /** The team space, or null without MNEMO_TEAM_DIR. */
  team: AgentSpace | null
  search: Pick<SearchService, 'search'>
}

type Access = 'read' | 'write'

/** Which paths an agent other than main may write (agent-space.ts gives them this layout). */
const PLAIN_LAYOUT = createMemoryPaths({ extraPaths: [] })

/** A write that needs the file to exist (If-Match) cannot create the agent. */
const accessFor = (pre: Precondition): Access => (pre.ifMatch === null ? 'write' : 'read')

function withoutCacheSize<T extends { embeddingCacheEntries?: number }>(status: T, admin: boolean): T {
  if (admin) return status
  const { embeddingCacheEntries: _shared, ...own } = status
  return own as T
}

export function createAgentGateway(deps: AgentGatewayDeps) {
  const { registry, team } = deps
  const teamTarget: SearchTarget | null = team && { ...team.target, pathPrefix: TEAM_PREFIX, privateMemoryFile: false }

  /** The space a request path names (the team's under `team/`) and the path inside it. */
  function route(own: AgentSpace, raw: string): { space: AgentSpace; rel: string; prefix: string } {
    if (team && raw.startsWith(TEAM_PREFIX))
      return { space: team, rel: raw.slice(TEAM_PREFIX.length), prefix: TEAM_PREFIX }
    return { space: own, rel: raw, prefix: '' }
  }

  /**
   * Runs `fn` on the space `raw` names, for `agent`; answers carry the path as the client
   * sees it. A write that would create the agent is checked first, so a refused one (a path
   * that cannot be written) creates nothing.
   */
  async function onPath<T extends { path: string }>(
    agent: string,
    access: Access,
    raw: string,
    fn: (space: AgentSpace, rel: string) => Promise<T>,
  ): Promise<T> {
    const teamPath = team !== null && raw.startsWith(TEAM_PREFIX)
    if (access === 'write' && agent !== MAIN_AGENT && !teamPath) checkWritablePath(raw, PLAIN_LAYOUT)
    return registry.use(agent, access, async (own) => {
      const { space, rel, prefix } = route(own, raw)
      const result = await fn(space, rel)
      return prefix === '' ? result : { ...result, path: prefix + result.path }
    })
  }

  return {
    /** Searches the agent's memory and, unless `spaces` leaves it out, the team's. */
    async search(agent: string, req: SearchRequest) {
      const spaces = new Set<Space>(req.spaces ?? ['agent', 'team'])
      if (req.spaces?.includes('team') && !teamTarget) {
        throw appError('VALIDATION_FAILED', 'There is no team memory (MNEMO_TEAM_DIR is not set)')
      }
      return registry.use(agent, 'read', (own) => {
        const targets = [spaces.has('agent') ? own.target : null, spaces.has('team') ? teamTarget : null]
        return deps.search.search(
          req,
          targets.filter((t): t is SearchTarget => t !== null),
        )
      })
    },
    /** The agent's indexed files, then the team's (under team/). */
    listFiles(agent: string) {
      return registry.use(agent, 'read', async (own) => [
        ...own.files.list().map((f) => ({ ...f, space: 'agent' as const })),
        ...(team?.files.list() ?? []).map((f) => ({ ...f, path: TEAM_PREFIX + f.path, space: 'team' as const })),
      ])
    },
    /** A file or a window of its lines; PATH_INVALID, FILE_NOT_FOUND or FILE_TOO_LARGE otherwise. */
    readFile(
      agent: string,
      raw: string,
      window: { from?: number | undefined; lines?: number | undefined },
    ): Promise<FileWindow> {
      return onPath(agent, 'read', raw, async (space, rel) => {
        const result = await space.files.read(rel, window)
        switch (result.kind) {
          case 'ok': {
            const { kind: _kind, ...found } = result
            return found
          }
          case 'invalid':
            throw appError('PATH_INVALID', `Invalid path: ${result.reason}`)
          case 'not-found':
            throw appError('FILE_NOT_FOUND')
          case 'too-large':
            throw appError('FILE_TOO_LARGE', undefined, { details: { sizeBytes: result.sizeBytes } })
        }
      })
    },
    put: (agent: string, raw: string, content: string, pre: Precondition): Promise<WriteResult> =>
      onPath(agent, accessFor(pre), raw, (space, rel) => space.writes.put(rel, content, pre)),
    append: (agent: string, raw: string, content: string, pre: Precondition): Promise<WriteResult> =>
      onPath(agent, accessFor(pre), raw, (space, rel) => space.writes.append(rel, content, pre)),
    /** Deleting needs the file, so it never creates the agent. */
    remove: (agent: string, raw: string, pre: Precondition) =>
      onPath(agent, 'read', raw, (space, rel) => space.writes.remove(rel, pre)),
    /**
     * Appends to the agent's day file (creating the agent); the heading names the agent
     * unless the request does. A flush without notes only syncs, so it creates nothing.
     */
    flush(agent: string, req: FlushRequest) {
      const agentId = req.agentId ?? (agent === MAIN_AGENT ? undefined : agent)
      const access = notesOf(req).trim() === '' ? 'read' : 'write'
      return registry.use(agent, access, (own) => own.flush.flush({ ...req, agentId }))
    },
    /**
     * The agent's index status. The shared embedding cache's size is for the admin only: an
     * agent writing a guessed text could otherwise tell from it whether another agent holds it.
     */
    indexStatus: (agent: string, opts: { admin: boolean }) =>
      registry.use(agent, 'read', async (own) => withoutCacheSize(own.indexing.status(), opts.admin)),
    /**
     * Starts (or joins) a sync of the agent's index; with `wait`, answers once it is done.
     * Without, the outcome is in the status and the log.
     */
    syncIndex(agent: string, opts: { full: boolean; wait: boolean; reason: string; admin: boolean }) {
      return registry.use(agent, 'read', async (own) => {
        const job = own.indexing.requestSync(opts)
        if (!opts.wait) {
          job.catch(() => undefined)
          return { done: false, status: withoutCacheSize(own.indexing.status(), opts.admin) }
        }
        await job
        return { done: true, status: withoutCacheSize(own.indexing.status(), opts.admin) }
      })
    },
    /** Every agent, and the team index (null without one). */
    async agents() {
      return { agents: await registry.list(), team: team && spaceSummary(team) }
    },
  }
}

export type AgentGateway = ReturnType<typeof createAgentGateway>
