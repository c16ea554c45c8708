/**
 * Where files sit in an archive of GET /export and POST /import. An agent's archive holds
 * its own paths as GET /files names them (`MEMORY.md`, `memory/…`; `team/…` names team
 * memory on import). A deployment archive (the admin token, without X-Mnemo-Agent) holds
 * every space, one top-level folder each: `main/…` (the workspace), `agents/<id>/…` (each
 * agent under MNEMO_AGENTS_DIR) and `team/…` (MNEMO_TEAM_DIR).
 */
import { PLAIN_LAYOUT } from '../agents/empty-space.js'
import type { Config } from '../config/config.js'
import { createMemoryPaths, type MemoryPaths } from '../files/memory-paths.js'
import { checkWritablePath } from '../files/write-service.js'
import { isAgentId, MAIN_AGENT, TEAM_PREFIX } from '../shared/agent-id.js'
import { appError, isAppError, type AppError } from '../shared/errors.js'
import { checkRelPath } from '../shared/safe-path.js'

/** Whose files: an agent's, or the team's. */
export type Owner = { kind: 'agent'; id: string } | { kind: 'team' }

/** Where one archive file is written: its space and its path there. */
export type FileTarget = { owner: Owner; rel: string }

/** One agent's archive, or the whole deployment's. */
export type ArchiveScope = { kind: 'agent'; agent: string } | { kind: 'deployment' }

export const AGENTS_FOLDER = 'agents/'
export const MAIN_FOLDER = 'main/'

/** The folder of a space in a deployment archive. */
export const folderOf = (owner: Owner): string =>
  owner.kind === 'team' ? TEAM_PREFIX : owner.id === MAIN_AGENT ? MAIN_FOLDER : `${AGENTS_FOLDER}${owner.id}/`

export type LayoutConfig = {
  workspace: Pick<Config['workspace'], 'extraPaths' | 'extraPathsWritable' | 'sessionsDir'>
  agents: Pick<Config['agents'], 'dir' | 'teamDir' | 'teamWritable'>
}

/** An entry refused for what its name says; nothing is written. */
function entryError(entry: string, err: AppError): AppError {
  return appError(err.code, `Archive entry "${entry}": ${err.message}`, { details: { entry } })
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
    owner.kind === 'team' ? teamPaths : owner.id === MAIN_AGENT ? mainPaths : PLAIN_LAYOUT

  const missing = (entry: string, what: string) =>
    appError('ARCHIVE_ENTRY_INVALID', `Archive entry "${entry}": ${what}`, { details: { entry, reason: what } })

  /** The space and path of a deployment archive's name. */
  function deploymentTarget(name: string): FileTarget {
    if (name.startsWith(MAIN_FOLDER)) return { owner: { kind: 'agent', id: MAIN_AGENT }, rel: name.slice(5) }
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
      return { owner: { kind: 'agent', id }, rel: rest.slice(id.length + 1) }
    }
    throw appError(
      'PATH_INVALID',
      `Archive entry "${name}": a deployment archive holds main/…, agents/<id>/… and team/… only`,
      { details: { entry: name } },
    )
  }

  /** The space and path of an agent archive's name: the agent's own, or the team's under team/. */
  function agentTarget(agent: string, name: string): FileTarget {
    if (hasTeam && name.startsWith(TEAM_PREFIX)) return { owner: { kind: 'team' }, rel: name.slice(TEAM_PREFIX.length) }
    return { owner: { kind: 'agent', id: agent }, rel: name }
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
    const target = scope.kind === 'deployment' ? deploymentTarget(name) : agentTarget(scope.agent, name)
    try {
      return { owner: target.owner, rel: checkWritablePath(target.rel, pathsOf(target.owner)) }
    } catch (err) {
      throw isAppError(err) ? entryError(name, err) : err
    }
  }

  /** The archive name of a file of `owner` at `rel`. */
  function nameOf(scope: ArchiveScope, owner: Owner, rel: string): string {
    return scope.kind === 'deployment' ? folderOf(owner) + rel : rel
  }

  return { targetOf, nameOf }
}

export type ArchiveLayout = ReturnType<typeof createArchiveLayout>
