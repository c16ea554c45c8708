/**
 * What a request acting as one agent may do (SPEC §8), for the REST routes and the MCP
 * tools alike: search its own memory and the team's, read and write its own files (and
 * the team's, under `team/`), flush, and sync its index; search and read (never write) the
 * memories of agents it has a grant for, under `agents/<owner>/` (granted-spaces.ts). Every
 * call names the agent; the registry opens its space and holds it for the call, so nothing
 * here can reach another agent's files without a grant: paths are resolved inside the
 * agent's (or the team's, or a granted owner's) folder only, each checked to be the folder
 * opened (held-root.ts). A write that would create the agent is
 * checked, path and content, before its folder is made; a team write never makes it.
 */
import type { FileWindow } from '../files/file-service.js'
import { checkNewDayFileFlush, notesOf, type FlushRequest } from '../files/flush-service.js'
import type { Precondition } from '../files/preconditions.js'
import { checkNewFileWrite, checkWritablePath, type WriteResult } from '../files/write-service.js'
import type { EntryFields, EntryWriteResult, ForgetResult, SupersedeRequest } from '../files/entry-service.js'
import { ADMIN_WRITER, checkOwnerClaims, resolveOrigin, type Writer } from '../files/provenance.js'
import type { Principal } from './token-auth.js'
import type { SearchService, SearchTarget } from '../search/search-service.js'
import type { SearchRequest } from '../search/types.js'
import { appError } from '../shared/errors.js'
import type { AgentRegistry } from './agent-registry.js'
import type { AgentSpace } from './agent-space.js'
import { grantedPrefix, grantedSpace, grantOwner, MAIN_AGENT, TEAM_PREFIX, type Space } from '../shared/agent-id.js'
import { spaceSummary } from './agent-summary.js'
import { PLAIN_LAYOUT, type SpaceView } from './empty-space.js'
import { grantedPath, grantReadOnly, OWNER_PLACE_WAIT_MS, onOwner, withOwnerTargets } from './granted-spaces.js'

export type AgentGatewayDeps = {
  registry: Pick<AgentRegistry, 'use' | 'list'>
  /** The team space, or null without MNEMO_TEAM_DIR. */
  team: AgentSpace | null
  search: Pick<SearchService, 'search'>
  /** MNEMO_MAX_FILE_BYTES: what a first write may hold. */
  maxFileBytes: number
  /** Reader id → the agents whose memory it may search and read (MNEMO_AGENT_GRANTS). */
  grants: ReadonlyMap<string, readonly string[]>
  /** Agents whose tokens may write entries of origin owner (MNEMO_OWNER_AGENTS). */
  ownerAgents: ReadonlySet<string>
}

type Access = 'read' | 'write'

type Located = { path: string }

/**
 * An answer about a space reached under `prefix` (team/), with every path it names as the
 * client names it: the file's, and those of the entries it skipped or superseded.
 */
function prefixed<T extends Located>(result: T, prefix: string): T {
  const at = <L extends Located>(l: L): L => ({ ...l, path: prefix + l.path })
  const r = result as T & { skipped?: Located[]; superseded?: Located[]; entry?: Located }
  return {
    ...result,
    path: prefix + result.path,
    ...(r.skipped && { skipped: r.skipped.map(at) }),
    ...(r.superseded && { superseded: r.superseded.map(at) }),
    ...(r.entry && { entry: at(r.entry) }),
  }
}

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
  const ownersOf = (agent: string): readonly string[] => deps.grants.get(agent) ?? []

  /** Refuses a write by `agent` to a memory it reads under a grant (before anything else is checked). */
  function refuseGranted(agent: string, raw: string): void {
    const granted = grantedPath(ownersOf(agent), raw)
    if (granted) throw grantReadOnly(agent, granted.owner)
  }

  /** The space a request path names (the team's under `team/`) and the path inside it. */
  function route(own: SpaceView, raw: string): { space: SpaceView; rel: string; prefix: string } {
    if (team && raw.startsWith(TEAM_PREFIX))
      return { space: team, rel: raw.slice(TEAM_PREFIX.length), prefix: TEAM_PREFIX }
    return { space: own, rel: raw, prefix: '' }
  }

  /**
   * Runs `fn` on the space `raw` names, for `agent`; answers carry the path as the client
   * sees it. A write to the agent's own files may create the agent: its path is checked
   * first, and `check` (its content) before the folder is made, so a refused write creates
   * nothing. A team path never creates the agent (it needs the agent to exist, or a token).
   */
  async function onPath<T extends { path: string }>(
    agent: string,
    access: Access,
    raw: string,
    fn: (space: SpaceView, rel: string) => Promise<T>,
    check: () => void = () => undefined,
  ): Promise<T> {
    const teamPath = team !== null && raw.startsWith(TEAM_PREFIX)
    if (access === 'write' && agent !== MAIN_AGENT && !teamPath) checkWritablePath(raw, PLAIN_LAYOUT)
    return registry.use(
      agent,
      teamPath ? 'read' : access,
      async (own) => {
        if (teamPath) await team.checkFolder()
        const { space, rel, prefix } = route(own, raw)
        const result = await fn(space, rel)
        return prefix === '' ? result : prefixed(result, prefix)
      },
      check,
    )
  }

  return {
    /**
     * Searches the agent's memory and, unless `spaces` leaves them out, the team's and those
     * of the agents it has a grant for. A granted space it has no grant for is refused like
     * any unknown value, whether that agent exists or not.
     */
    async search(agent: string, req: SearchRequest) {
      const owners = ownersOf(agent)
      const spaces = new Set<Space>(req.spaces ?? ['agent', 'team', ...owners.map(grantedSpace)])
      if (req.spaces?.includes('team') && !teamTarget) {
        throw appError('VALIDATION_FAILED', 'There is no team memory (MNEMO_TEAM_DIR is not set)')
      }
      const ungranted = [...spaces].filter((s) => {
        const owner = grantOwner(s)
        return owner !== null && !owners.includes(owner)
      })
      if (ungranted.length > 0) {
        throw appError('VALIDATION_FAILED', `No read grant for ${ungranted.join(', ')} (MNEMO_AGENT_GRANTS)`)
      }
      return registry.use(agent, 'read', async (own) => {
        const withTeam = spaces.has('team') && teamTarget
        if (withTeam) await team?.checkFolder()
        const targets = [spaces.has('agent') ? own.target : null, withTeam ? teamTarget : null]
        const granted = owners.filter((o) => spaces.has(grantedSpace(o)))
        return withOwnerTargets(registry, granted, (ownerTargets) =>
          deps.search.search(req, [...targets.filter((t): t is SearchTarget => t !== null), ...ownerTargets]),
        )
      })
    },
    /** The agent's indexed files, then the team's (under team/), then those of its grants (under agents/<owner>/). */
    listFiles(agent: string) {
      return registry.use(agent, 'read', async (own) => {
        await team?.checkFolder()
        const granted = []
        for (const owner of ownersOf(agent)) {
          const files = await onOwner(
            registry,
            owner,
            (space) => space.files.list(),
            () => [],
            { placeWaitMs: OWNER_PLACE_WAIT_MS },
          )
          granted.push(...files.map((f) => ({ ...f, path: grantedPrefix(owner) + f.path, space: grantedSpace(owner) })))
        }
        return [
          ...(await own.files.list()).map((f) => ({ ...f, space: 'agent' as const })),
          ...((await team?.files.list()) ?? []).map((f) => ({
            ...f,
            path: TEAM_PREFIX + f.path,
            space: 'team' as const,
          })),
          ...granted,
        ]
      })
    },
    /** A file or a window of its lines; PATH_INVALID, FILE_NOT_FOUND or FILE_TOO_LARGE otherwise. */
    readFile(
      agent: string,
      raw: string,
      window: { from?: number | undefined; lines?: number | undefined },
    ): Promise<FileWindow> {
      const readIn = async (space: SpaceView, rel: string) => {
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
      }
      const granted = grantedPath(ownersOf(agent), raw)
      if (!granted) return onPath(agent, 'read', raw, readIn)
      const { owner, rel } = granted
      return onOwner(
        registry,
        owner,
        async (space) => {
          const found = await readIn(space, rel)
          return { ...found, path: grantedPrefix(owner) + found.path }
        },
        () => {
          throw appError('FILE_NOT_FOUND')
        },
      )
    },
    /**
     * What a request's token may write (provenance.ts): the admin records no origin unless
     * it claims one and may claim owner; an agent token records agent, and may claim owner
     * only when its agent is in MNEMO_OWNER_AGENTS.
     */
    writerFor: (principal: Principal): Writer =>
      principal.role === 'admin'
        ? ADMIN_WRITER
        : { origin: 'agent', mayClaimOwner: deps.ownerAgents.has(principal.agentId) },
    put: async (
      agent: string,
      raw: string,
      content: string,
      pre: Precondition,
      writer: Writer,
    ): Promise<WriteResult> => {
      refuseGranted(agent, raw)
      return onPath(
        agent,
        accessFor(pre),
        raw,
        (space, rel) => space.writes.put(rel, content, pre, writer),
        () => {
          checkNewFileWrite('replace', content, deps.maxFileBytes)
          checkOwnerClaims(writer, content, null)
        },
      )
    },
    /** Appends; with an origin or key, as an entry (entry-service.ts). */
    append: async (
      agent: string,
      raw: string,
      content: string,
      pre: Precondition,
      writer: Writer,
      fields: EntryFields = {},
    ): Promise<EntryWriteResult> => {
      refuseGranted(agent, raw)
      return onPath(
        agent,
        accessFor(pre),
        raw,
        (space, rel) => space.entries.append(rel, content, pre, writer, fields),
        () => {
          checkNewFileWrite('append', content, deps.maxFileBytes)
          resolveOrigin(writer, fields.origin)
          checkOwnerClaims(writer, content, null)
        },
      )
    },
    /**
     * Supersedes an entry of the agent's memory (or the team's, under team/): by path and
     * lines, or by key. Needs the entry, so it never creates the agent.
     */
    supersede: async (agent: string, req: SupersedeRequest, pre: Precondition, writer: Writer) => {
      if (req.path !== undefined) {
        refuseGranted(agent, req.path)
        return onPath(agent, 'read', req.path, (space, rel) =>
          space.entries.supersede({ ...req, path: rel }, pre, writer),
        )
      }
      const result = await registry.use(agent, 'read', (own) => own.entries.supersede(req, pre, writer))
      return result
    },
    /**
     * Removes every flush of a session from the agent's day files; `agent` null (the admin
     * not acting for one): from every agent's.
     */
    async forget(agent: string | null, sessionId: string) {
      if (agent !== null) {
        const done = await registry.use(agent, 'read', (own) => own.entries.forget(sessionId))
        return { ...done, removed: done.removed.map((r) => ({ ...r, agent })) }
      }
      const removed: (ForgetResult['removed'][number] & { agent: string })[] = []
      let files = 0
      for (const { id } of await registry.list()) {
        const done = await registry.use(id, 'read', (own) => own.entries.forget(sessionId))
        files += done.files
        removed.push(...done.removed.map((r) => ({ ...r, agent: id })))
      }
      return { sessionId, removed, files }
    },
    /** Deleting needs the file, so it never creates the agent. */
    remove: async (agent: string, raw: string, pre: Precondition) => {
      refuseGranted(agent, raw)
      return onPath(agent, 'read', raw, (space, rel) => space.writes.remove(rel, pre))
    },
    /**
     * Appends to the agent's day file (creating the agent). The heading names the acting
     * agent (main only when the body says `agentId: "main"`, as single-agent headings never
     * named one); a body `agentId` naming any other agent is 403 AGENT_FORBIDDEN, so no
     * agent can sign notes as another. A flush without notes only syncs: it creates nothing.
     */
    flush(agent: string, req: FlushRequest, writer: Writer) {
      if (req.agentId !== undefined && req.agentId !== agent) {
        throw appError(
          'AGENT_FORBIDDEN',
          `agentId must name the agent the request acts for ("${agent}"): the heading names that agent`,
        )
      }
      const agentId = agent === MAIN_AGENT ? req.agentId : agent
      const access = notesOf(req).trim() === '' ? 'read' : 'write'
      return registry.use(
        agent,
        access,
        (own) => own.entries.flush({ ...req, agentId }, writer),
        () => {
          checkNewDayFileFlush({ ...req, agentId }, deps.maxFileBytes)
          resolveOrigin(writer, req.origin ?? undefined)
          checkOwnerClaims(writer, notesOf(req), null)
        },
      )
    },
    /**
     * The agent's index status. The shared embedding cache's size is for the admin only: an
     * agent writing a guessed text could otherwise tell from it whether another agent holds it.
     */
    indexStatus: (agent: string, opts: { admin: boolean }) =>
      registry.use(agent, 'read', async (own) => withoutCacheSize(await own.indexing.status(), opts.admin)),
    /**
     * Starts (or joins) a sync of the agent's index; with `wait`, answers once it is done.
     * Without, the outcome is in the status and the log.
     */
    syncIndex(agent: string, opts: { full: boolean; wait: boolean; reason: string; admin: boolean }) {
      return registry.use(agent, 'read', async (own) => {
        const job = own.indexing.requestSync(opts)
        if (!opts.wait) {
          job.catch(() => undefined)
          return { done: false, status: withoutCacheSize(await own.indexing.status(), opts.admin) }
        }
        await job
        return { done: true, status: withoutCacheSize(await own.indexing.status(), opts.admin) }
      })
    },
    /** Every agent, and the team index (null without one). */
    async agents() {
      return { agents: await registry.list(), team: team && (await spaceSummary(team)) }
    },
  }
}

export type AgentGateway = ReturnType<typeof createAgentGateway>
