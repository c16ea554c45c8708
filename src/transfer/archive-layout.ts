/**
 * Where files sit in an archive of GET /export and POST /import. An agent's archive holds
 * its own paths as GET /files names them (`MEMORY.md`, `memory/…`; `team/…` names team
 * memory on import), and for the admin its users' under `users/<id>/…`. A user's archive (a
 * request acting for a user) holds that user's files only, under `users/<id>/…`. A
 * deployment archive (the admin token, without X-Mnemo-Agent) holds every space, one
 * top-level folder each: `main/…` (the workspace), `agents/<id>/…` (each agent under
 * MNEMO_AGENTS_DIR) and `team/…` (MNEMO_TEAM_DIR); users travel inside their agent's
 * folder (`agents/<id>/users/<user>/…`).
 */
import { PLAIN_LAYOUT } from '../agents/empty-space.js'
import type { Config } from '../config/config.js'
import { createMemoryPaths, type MemoryPaths } from '../files/memory-paths.js'
import { checkWritablePath } from '../files/write-service.js'
import { isAgentId, isUserId, MAIN_AGENT, TEAM_PREFIX, USERS_DIR, userPrefix } from '../shared/agent-id.js'
import { routeUserPath, userPathForbidden } from '../agents/user-scope.js'
import { appError, isAppError, type AppError } from '../shared/errors.js'
import { checkRelPath } from '../shared/safe-path.js'

/** Whose files: an agent's (shared), one of its users', or the team's. */
export type Owner = { kind: 'agent'; id: string } | { kind: 'user'; agent: string; user: string } | { kind: 'team' }

/** Where one archive file is written: its space and its path there. */
export type FileTarget = { owner: Owner; rel: string }

/**
 * One agent's archive (`users`: with its users' memory, for the admin), one user's, or the
 * whole deployment's.
 */
export type ArchiveScope =
  | { kind: 'agent'; agent: string; users: boolean }
  | { kind: 'user'; agent: string; user: string }
  | { kind: 'deployment' }

export const AGENTS_FOLDER = 'agents/'
export const MAIN_FOLDER = 'main/'

const agentFolderOf = (id: string): string => (id === MAIN_AGENT ? MAIN_FOLDER : `${AGENTS_FOLDER}${id}/`)

/** The folder of a space in a deployment archive. */
export function folderOf(owner: Owner): string {
  if (owner.kind === 'team') return TEAM_PREFIX
  return owner.kind === 'user' ? agentFolderOf(owner.agent) + userPrefix(owner.user) : agentFolderOf(owner.id)
}

/** The user a path of an agent's names (`users/alice/memory/x.md`), or null; USER_INVALID for a bad id. */
function userOf(agent: string, rel: string): FileTarget | null {
  if (!rel.startsWith(`${USERS_DIR}/`)) return null
  const rest = rel.slice(USERS_DIR.length + 1)
  const user = rest.slice(0, Math.max(0, rest.indexOf('/')))
  if (!isUserId(user)) throw appError('USER_INVALID', 'users/<id>/ needs a user id (a-z 0-9 _ -, up to 63)')
  return { owner: { kind: 'user', agent, user }, rel: rest.slice(user.length + 1) }
}

export type LayoutConfig = {
  workspace: Pick<Config['workspace'], 'extraPaths' | 'extraPathsWritable' | 'sessionsDir'>
  agents: Pick<Config['agents'], 'dir' | 'teamDir' | 'teamWritable'>
}

/** An entry refused for what its name says; nothing is written. */
function entryError(entry: string, err: AppError): AppError {
  return appError(err.code, `Archive entry "${entry}": ${err.message}`, { details: { entry } })
}

/** Runs `fn` for the archive entry `entry`, its refusals named after the entry. */
function inEntry<T>(entry: string, fn: () => T): T {
  try {
    return fn()
  } catch (err) {
    throw isAppError(err) ? entryError(entry, err) : err
  }
}

/**
 * Maps archive names to the files they are written to, with the write API's path rules for
 * each space (checkWritablePath): what a PUT /files of that path would be refused with, an
 * entry is refused with too.
 */
export function createArchiveLayout(config: LayoutConfig) {
  const mainPaths = createMemoryPaths({
    extraPaths: config.workspace.extraPaths,
    extraPathsWritable: config.workspace.extraPathsWritable,
    sessions: config.workspace.sessionsDir !== undefined,
  })
  const teamPaths = createMemoryPaths({ extraPaths: [], readOnly: !config.agents.teamWritable })
  const hasTeam = config.agents.teamDir !== undefined
  const pathsOf = (owner: Owner): Pick<MemoryPaths, 'classify'> =>
    owner.kind === 'team' ? teamPaths : owner.kind === 'agent' && owner.id === MAIN_AGENT ? mainPaths : PLAIN_LAYOUT

  const missing = (entry: string, what: string) =>
    appError('ARCHIVE_ENTRY_INVALID', `Archive entry "${entry}": ${what}`, { details: { entry, reason: what } })

  /** The space and path of a deployment archive's name. */
  function deploymentTarget(name: string): FileTarget {
    if (name.startsWith(MAIN_FOLDER)) {
      const rel = name.slice(MAIN_FOLDER.length)
      return inEntry(name, () => userOf(MAIN_AGENT, rel)) ?? { owner: { kind: 'agent', id: MAIN_AGENT }, rel }
    }
    if (name.startsWith(TEAM_PREFIX)) {
      if (!hasTeam) throw missing(name, 'there is no team memory here (MNEMO_TEAM_DIR is not set)')
      return { owner: { kind: 'team' }, rel: name.slice(TEAM_PREFIX.length) }
    }
    if (name.startsWith(AGENTS_FOLDER)) {
      const rest = name.slice(AGENTS_FOLDER.length)
      const id = rest.slice(0, Math.max(0, rest.indexOf('/')))
      if (!isAgentId(id) || id === MAIN_AGENT) {
        throw appError('AGENT_INVALID', `Archive entry "${name}": agents/<id>/ needs an agent id other than main`, {
          details: { entry: name },
        })
      }
      if (config.agents.dir === undefined) throw missing(name, 'there are no agents here (MNEMO_AGENTS_DIR is not set)')
      const rel = rest.slice(id.length + 1)
      return inEntry(name, () => userOf(id, rel)) ?? { owner: { kind: 'agent', id }, rel }
    }
    throw appError(
      'PATH_INVALID',
      `Archive entry "${name}": a deployment archive holds main/…, agents/<id>/… and team/… only`,
      { details: { entry: name } },
    )
  }

  /**
   * The space and path of an agent archive's name: the agent's own, the team's under team/,
   * or (for the admin) a user's under users/<id>/.
   */
  function agentTarget(scope: { agent: string; users: boolean }, name: string): FileTarget {
    if (hasTeam && name.startsWith(TEAM_PREFIX)) return { owner: { kind: 'team' }, rel: name.slice(TEAM_PREFIX.length) }
    if (name === USERS_DIR || name.startsWith(`${USERS_DIR}/`)) {
      if (!scope.users) throw userPathForbidden()
      return userOf(scope.agent, name) as FileTarget
    }
    return { owner: { kind: 'agent', id: scope.agent }, rel: name }
  }

  /** The path in its user's folder of a user archive's name: under its own users/<id>/ only. */
  function userTarget(scope: { agent: string; user: string }, name: string): FileTarget {
    const route = routeUserPath({ agent: scope.agent, user: scope.user }, name, 'write')
    if (route.kind !== 'user') throw userPathForbidden()
    return { owner: { kind: 'user', agent: scope.agent, user: scope.user }, rel: route.rel }
  }

  /**
   * Where the archive's file `name` goes (null for a folder entry, which writes nothing);
   * throws what it is refused with. `name` is as readArchive passes it (no `./` prefix).
   */
  function targetOf(scope: ArchiveScope, name: string, kind: 'file' | 'directory'): FileTarget | null {
    const syntax = checkRelPath(name)
    if (syntax.kind === 'invalid') {
      throw appError('PATH_INVALID', `Archive entry "${name}": ${syntax.reason}`, { details: { entry: name } })
    }
    if (kind === 'directory') return null
    const target =
      scope.kind === 'deployment'
        ? deploymentTarget(name)
        : inEntry(name, () => (scope.kind === 'user' ? userTarget(scope, name) : agentTarget(scope, name)))
    return inEntry(name, () => ({ owner: target.owner, rel: checkWritablePath(target.rel, pathsOf(target.owner)) }))
  }

  /** The archive name of a file of `owner` at `rel`. */
  function nameOf(scope: ArchiveScope, owner: Owner, rel: string): string {
    if (scope.kind === 'deployment') return folderOf(owner) + rel
    return owner.kind === 'user' ? userPrefix(owner.user) + rel : rel
  }

  return { targetOf, nameOf }
}

export type ArchiveLayout = ReturnType<typeof createArchiveLayout>
