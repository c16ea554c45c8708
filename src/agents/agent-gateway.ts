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
 *
 * A request may also act for one user inside the agent (SPEC §11, user-scope.ts): it then
 * reads the agent's shared memory, the user's own (under `users/<id>/`, a space of its
 * own) and the team's, and writes the user's only. A path under `users/` is reached only by
 * a request for that very user; any other is refused alike, whether the file exists or not.
 */
import type { FileWindow } from '../files/file-service.js'
import { checkNewDayFileFlush, notesOf, type FlushRequest } from '../files/flush-service.js'
import type { Precondition } from '../files/preconditions.js'
import { checkNewFileWrite, type WriteResult } from '../files/write-service.js'
import type { EntryFields, EntryWriteResult, ForgetResult, SupersedeRequest } from '../files/entry-service.js'
import { ADMIN_WRITER, checkOwnerClaims, resolveOrigin, type Writer } from '../files/provenance.js'
import type { Principal } from './token-auth.js'
import type { SearchedIndex } from '../search/search-plan.js'
import type { SearchService } from '../search/search-service.js'
import type { SearchRequest } from '../search/types.js'
import { appError } from '../shared/errors.js'
import type { AgentRegistry } from './agent-registry.js'
import type { AgentSpace } from './agent-space.js'
import {
  grantedPrefix,
  grantedSpace,
  grantOwner,
  MAIN_AGENT,
  TEAM_PREFIX,
  userPrefix,
  userSpaceId,
  type Actor,
  type Space,
} from '../shared/agent-id.js'
import { spaceSummary } from './agent-summary.js'
import type { SpaceView } from './empty-space.js'
import { grantedPath, grantReadOnly, OWNER_PLACE_WAIT_MS, onOwner, withOwnerTargets } from './granted-spaces.js'
import { createSpaceAccess, prefixed, useFor } from './space-access.js'

export type AgentGatewayDeps = {
  registry: Pick<AgentRegistry, 'use' | 'list' | 'summary' | 'remove'>
  /** The team space, or null without MNEMO_TEAM_DIR. */
  team: AgentSpace | null
  /** The users' folders: an agent's users, and deleting one's folder and index (user-folders.ts). */
  users: {
    list: (agent: string) => Promise<string[]>
    /** Deletes the user's folder and index; answers the files removed, relative to its folder. */
    remove: (agent: string, user: string) => Promise<string[]>
  }
  search: Pick<SearchService, 'search'>
  /** MNEMO_MAX_FILE_BYTES: what a first write may hold. */
  maxFileBytes: number
  /** Reader id → the agents whose memory it may search and read (MNEMO_AGENT_GRANTS). */
  grants: ReadonlyMap<string, readonly string[]>
  /** Agents whose tokens may write entries of origin owner (MNEMO_OWNER_AGENTS). */
  ownerAgents: ReadonlySet<string>
}

function withoutCacheSize<T extends { embeddingCacheEntries?: number }>(status: T, admin: boolean): T {
  if (admin) return status
  const { embeddingCacheEntries: _shared, ...own } = status
  return own as T
}

export function createAgentGateway(deps: AgentGatewayDeps) {
  const { registry, team } = deps
  const { onUser, onScope, onPath } = createSpaceAccess({ registry, team })
  const teamTarget: SearchedIndex | null = team && { ...team.target, pathPrefix: TEAM_PREFIX, privateMemoryFile: false }
  const ownersOf = (agent: string): readonly string[] => deps.grants.get(agent) ?? []

  /** Refuses a write by `agent` to a memory it reads under a grant (before anything else is checked). */
  function refuseGranted(agent: string, raw: string): void {
    const granted = grantedPath(ownersOf(agent), raw)
    if (granted) throw grantReadOnly(agent, granted.owner)
  }

  /** The acting user's search target, labelled with its space and path prefix; null without one. */
  function userTarget(user: SpaceView, id: string): SearchedIndex | null {
    return user.target && { ...user.target, space: 'user', pathPrefix: userPrefix(id), privateMemoryFile: true }
  }

  return {
    /**
     * Searches the agent's memory and, unless `spaces` leaves them out, the acting user's,
     * the team's and those of the agents it has a grant for. A granted space it has no
     * grant for is refused like any unknown value, whether that agent exists or not; so is
     * `user` without a user.
     */
    async search(who: Actor, req: SearchRequest) {
      const { agent } = who
      const owners = ownersOf(agent)
      const defaults: Space[] = ['agent', ...(who.user === null ? [] : ['user' as const]), 'team']
      const spaces = new Set<Space>(req.spaces ?? [...defaults, ...owners.map(grantedSpace)])
      if (req.spaces?.includes('team') && !teamTarget) {
        throw appError('VALIDATION_FAILED', 'There is no team memory (MNEMO_TEAM_DIR is not set)')
      }
      if (req.spaces?.includes('user') && who.user === null) {
        throw appError('VALIDATION_FAILED', 'Space "user" needs a user to act for (X-Mnemo-User)')
      }
      const ungranted = [...spaces].filter((s) => {
        const owner = grantOwner(s)
        return owner !== null && !owners.includes(owner)
      })
      if (ungranted.length > 0) {
        throw appError('VALIDATION_FAILED', `No read grant for ${ungranted.join(', ')} (MNEMO_AGENT_GRANTS)`)
      }
      const run = async (own: SpaceView, user: SpaceView | null) => {
        const withTeam = spaces.has('team') && teamTarget
        if (withTeam) await team?.checkFolder()
        const targets = [
          spaces.has('agent') ? own.target : null,
          user && who.user !== null && spaces.has('user') ? userTarget(user, who.user) : null,
          withTeam ? teamTarget : null,
        ]
        const granted = owners.filter((o) => spaces.has(grantedSpace(o)))
        return withOwnerTargets(registry, granted, (ownerTargets) =>
          deps.search.search(req, [...targets.filter((t): t is SearchedIndex => t !== null), ...ownerTargets]),
        )
      }
      if (who.user === null) return registry.use(agent, 'read', (own) => run(own, null))
      return onUser({ ...who, user: who.user }, 'read', (user, own) => run(own, user))
    },
    /**
     * The agent's indexed files, then the acting user's (under users/<id>/), the team's
     * (under team/), then those of its grants (under agents/<owner>/).
     */
    listFiles(who: Actor) {
      const list = async (own: SpaceView, user: SpaceView | null) => {
        await team?.checkFolder()
        const granted = []
        for (const owner of ownersOf(who.agent)) {
          const files = await onOwner(
            registry,
            owner,
            (space) => space.files.list(),
            () => [],
            { placeWaitMs: OWNER_PLACE_WAIT_MS },
          )
          granted.push(...files.map((f) => ({ ...f, path: grantedPrefix(owner) + f.path, space: grantedSpace(owner) })))
        }
        const mine =
          user && who.user !== null
            ? (await user.files.list()).map((f) => ({
                ...f,
                path: userPrefix(who.user as string) + f.path,
                space: 'user' as const,
              }))
            : []
        return [
          ...(await own.files.list()).map((f) => ({ ...f, space: 'agent' as const })),
          ...mine,
          ...((await team?.files.list()) ?? []).map((f) => ({
            ...f,
            path: TEAM_PREFIX + f.path,
            space: 'team' as const,
          })),
          ...granted,
        ]
      }
      if (who.user === null) return registry.use(who.agent, 'read', (own) => list(own, null))
      return onUser({ ...who, user: who.user }, 'read', (user, own) => list(own, user))
    },
    /** A file or a window of its lines; PATH_INVALID, FILE_NOT_FOUND or FILE_TOO_LARGE otherwise. */
    readFile(
      who: Actor,
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
      const granted = grantedPath(ownersOf(who.agent), raw)
      if (!granted) return onPath(who, 'read', raw, readIn)
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
     * only when its agent is in MNEMO_OWNER_AGENTS and it is not bound to one user.
     */
    writerFor: (principal: Principal): Writer =>
      principal.role === 'admin'
        ? ADMIN_WRITER
        : {
            origin: 'agent',
            mayClaimOwner: principal.userId === undefined && deps.ownerAgents.has(principal.agentId),
          },
    put: async (who: Actor, raw: string, content: string, pre: Precondition, writer: Writer): Promise<WriteResult> => {
      refuseGranted(who.agent, raw)
      return onPath(
        who,
        useFor(pre),
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
      who: Actor,
      raw: string,
      content: string,
      pre: Precondition,
      writer: Writer,
      fields: EntryFields = {},
    ): Promise<EntryWriteResult> => {
      refuseGranted(who.agent, raw)
      return onPath(
        who,
        useFor(pre),
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
     * Supersedes an entry of the agent's memory (or the team's, under team/; or the acting
     * user's, under users/<id>/): by path and lines, or by key — within the acting user's
     * memory when it acts for one. Needs the entry, so it never creates the agent.
     */
    supersede: async (who: Actor, req: SupersedeRequest, pre: Precondition, writer: Writer) => {
      if (req.path !== undefined) {
        refuseGranted(who.agent, req.path)
        return onPath(who, 'change', req.path, (space, rel) =>
          space.entries.supersede({ ...req, path: rel }, pre, writer),
        )
      }
      return onScope(who, 'read', async (space, prefix) =>
        prefixed(await space.entries.supersede(req, pre, writer), prefix),
      )
    },
    /**
     * Removes every flush of a session from the day files of the acting user (or, without
     * one, the agent's own); `agent` null (the admin not acting for one): from every
     * agent's own.
     */
    async forget(who: Actor | null, sessionId: string) {
      if (who !== null) {
        const done = await onScope(who, 'read', async (space, prefix) => {
          const result = await space.entries.forget(sessionId)
          return { ...result, removed: result.removed.map((r) => ({ ...r, path: prefix + r.path })) }
        })
        return { ...done, removed: done.removed.map((r) => ({ ...r, agent: who.agent })) }
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
    remove: async (who: Actor, raw: string, pre: Precondition) => {
      refuseGranted(who.agent, raw)
      return onPath(who, 'change', raw, (space, rel) => space.writes.remove(rel, pre))
    },
    /**
     * Appends to the day file of the acting user (or the agent's own), creating them. The
     * heading names the acting agent (main only when the body says `agentId: "main"`, as
     * single-agent headings never named one); a body `agentId` naming any other agent is
     * 403 AGENT_FORBIDDEN, so no agent can sign notes as another. A flush without notes
     * only syncs: it creates nothing.
     */
    flush(who: Actor, req: FlushRequest, writer: Writer) {
      const { agent } = who
      if (req.agentId !== undefined && req.agentId !== agent) {
        throw appError(
          'AGENT_FORBIDDEN',
          `agentId must name the agent the request acts for ("${agent}"): the heading names that agent`,
        )
      }
      const agentId = agent === MAIN_AGENT ? req.agentId : agent
      const access = notesOf(req).trim() === '' ? 'read' : 'write'
      return onScope(
        who,
        access,
        async (space, prefix) => prefixed(await space.entries.flush({ ...req, agentId }, writer), prefix),
        () => {
          checkNewDayFileFlush({ ...req, agentId }, deps.maxFileBytes)
          resolveOrigin(writer, req.origin ?? undefined)
          checkOwnerClaims(writer, notesOf(req), null)
        },
      )
    },
    /**
     * The index status of the acting user's memory (or the agent's own). The shared
     * embedding cache's size is for the admin only: an agent writing a guessed text could
     * otherwise tell from it whether another agent holds it.
     */
    indexStatus: (who: Actor, opts: { admin: boolean }) =>
      onScope(who, 'read', async (space) => withoutCacheSize(await space.indexing.status(), opts.admin)),
    /**
     * Starts (or joins) a sync of the acting user's index (or the agent's own); with `wait`,
     * answers once it is done. Without, the outcome is in the status and the log.
     */
    syncIndex(who: Actor, opts: { full: boolean; wait: boolean; reason: string; admin: boolean }) {
      return onScope(who, 'read', async (space) => {
        const job = space.indexing.requestSync(opts)
        if (!opts.wait) {
          job.catch(() => undefined)
          return { done: false, status: withoutCacheSize(await space.indexing.status(), opts.admin) }
        }
        await job
        return { done: true, status: withoutCacheSize(await space.indexing.status(), opts.admin) }
      })
    },
    /**
     * Every agent with its count of users, and the team index (null without one). Users are
     * counted from their folders, so listing opens no agent (GET /users opens the one it lists).
     */
    async agents() {
      const agents = []
      for (const agent of await registry.list())
        agents.push({ ...agent, users: (await deps.users.list(agent.id)).length })
      return { agents, team: team && (await spaceSummary(team)) }
    },
    /** The users of an agent (those with a folder), with what each one's index holds. */
    users: (agent: string) =>
      registry.use(agent, 'read', async () => {
        const out = []
        for (const id of await deps.users.list(agent)) {
          out.push({ id, ...(await registry.summary(userSpaceId(agent, id))) })
        }
        return { agent, users: out }
      }),
    /**
     * Deletes everything a user of the agent has: its files and its index, once no request
     * holds its memory (those that come meanwhile wait, then find it empty). Answers the
     * files removed, as the user named them.
     */
    removeUser: (agent: string, user: string) =>
      registry.use(agent, 'read', () =>
        registry.remove(userSpaceId(agent, user), async () => {
          const files = await deps.users.remove(agent, user)
          return { agent, user, files: files.map((f) => userPrefix(user) + f) }
        }),
      ),
  }
}

export type AgentGateway = ReturnType<typeof createAgentGateway>
