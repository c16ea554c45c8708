/**
 * Which space a request reaches, held for the call (SPEC §8, §11): the agent's own, the
 * team's (paths under `team/`) or the acting user's (under `users/<id>/`, user-scope.ts),
 * with answers naming paths as the client does. A call says what it does to its path
 * (PathUse): that decides both whether the registry may create the agent (and the user)
 * for it, and whether the path's write rules apply. Used by the gateway only.
 */
import type { Precondition } from '../files/preconditions.js'
import { checkWritablePath } from '../files/write-service.js'
import { MAIN_AGENT, TEAM_PREFIX, userPrefix, userSpaceId, type Actor } from '../shared/agent-id.js'
import type { AgentAccess, AgentRegistry } from './agent-registry.js'
import type { AgentSpace } from './agent-space.js'
import { PLAIN_LAYOUT, type SpaceView } from './empty-space.js'
import { OWNER_PLACE_WAIT_MS } from './granted-spaces.js'
import { routeUserPath } from './user-scope.js'

type Located = { path: string }

/**
 * An answer about a space reached under `prefix` (team/), with every path it names as the
 * client names it: the file's, and those of the entries it skipped or superseded.
 */
export function prefixed<T extends object>(result: T, prefix: string): T {
  if (prefix === '') return result
  const at = <L extends Located>(l: L): L => ({ ...l, path: prefix + l.path })
  const r = result as T & { path?: string; skipped?: Located[]; superseded?: Located[]; entry?: Located }
  return {
    ...result,
    ...(r.path !== undefined && { path: prefix + r.path }),
    ...(r.skipped && { skipped: r.skipped.map(at) }),
    ...(r.superseded && { superseded: r.superseded.map(at) }),
    ...(r.entry && { entry: at(r.entry) }),
  }
}

/**
 * What a call does to the file a path names: reads it, changes one that must exist (a
 * delete, a supersede, a write under If-Match), or writes one it may create (which may
 * create the agent and the user too). Both changes are writes to the path's rules.
 */
export type PathUse = 'read' | 'change' | 'create'

/** A write that needs the file to exist (If-Match) cannot create the agent. */
export const useFor = (pre: Precondition): PathUse => (pre.ifMatch === null ? 'create' : 'change')

/** What the registry is asked for: a creating write may make the agent's (or the user's) folder. */
const accessOf = (use: PathUse): AgentAccess => (use === 'create' ? 'write' : 'read')

export function createSpaceAccess(deps: { registry: Pick<AgentRegistry, 'use'>; team: AgentSpace | null }) {
  const { registry, team } = deps

  /** The space a request path names (the team's under `team/`) and the path inside it. */
  function route(own: SpaceView, raw: string): { space: SpaceView; rel: string; prefix: string } {
    if (team && raw.startsWith(TEAM_PREFIX))
      return { space: team, rel: raw.slice(TEAM_PREFIX.length), prefix: TEAM_PREFIX }
    return { space: own, rel: raw, prefix: '' }
  }

  /**
   * Runs `fn` with the agent's space and its user's (`who.user`), both held; a write may
   * create both, `check` first. The user's space waits at most OWNER_PLACE_WAIT_MS for a
   * place among the open ones (the request holds the agent's).
   */
  function onUser<T>(
    who: Actor & { user: string },
    access: AgentAccess,
    fn: (user: SpaceView, own: SpaceView) => Promise<T>,
    check: () => void = () => undefined,
  ): Promise<T> {
    return registry.use(
      who.agent,
      access,
      (own) =>
        registry.use(userSpaceId(who.agent, who.user), access, (user) => fn(user, own), check, {
          placeWaitMs: OWNER_PLACE_WAIT_MS,
        }),
      check,
    )
  }

  /** Runs `fn` on the space `who` writes entries and flushes to: its user's, or the agent's own. */
  function onScope<T>(
    who: Actor,
    access: AgentAccess,
    fn: (space: SpaceView, prefix: string) => Promise<T>,
    check: () => void = () => undefined,
  ): Promise<T> {
    if (who.user === null) return registry.use(who.agent, access, (own) => fn(own, ''), check)
    const prefix = userPrefix(who.user)
    return onUser({ ...who, user: who.user }, access, (user) => fn(user, prefix), check)
  }

  /**
   * Runs `fn` on the space `raw` names, for `who`; answers carry the path as the client
   * sees it. A write to the agent's own files (or its user's) may create the agent: its
   * path is checked first, and `check` (its content) before the folder is made, so a
   * refused write creates nothing. A team path never creates the agent (it needs the agent
   * to exist, or a token).
   */
  async function onPath<T extends { path: string }>(
    who: Actor,
    use: PathUse,
    raw: string,
    fn: (space: SpaceView, rel: string) => Promise<T>,
    check: () => void = () => undefined,
  ): Promise<T> {
    const access = accessOf(use)
    const scoped = routeUserPath(who, raw, use === 'read' ? 'read' : 'write')
    if (scoped.kind === 'user') {
      if (use === 'create') checkWritablePath(scoped.rel, PLAIN_LAYOUT)
      const result = await onUser({ ...who, user: scoped.user }, access, (user) => fn(user, scoped.rel), check)
      return prefixed(result, scoped.prefix)
    }
    const teamPath = team !== null && raw.startsWith(TEAM_PREFIX)
    if (use === 'create' && who.agent !== MAIN_AGENT && !teamPath) checkWritablePath(raw, PLAIN_LAYOUT)
    return registry.use(
      who.agent,
      teamPath ? 'read' : access,
      async (own) => {
        if (teamPath) await team.checkFolder()
        const { space, rel, prefix } = route(own, raw)
        return prefixed(await fn(space, rel), prefix)
      },
      check,
    )
  }

  return { onUser, onScope, onPath }
}
