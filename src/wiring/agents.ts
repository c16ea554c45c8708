/**
 * Wiring of the agents (part of the composition root, SPEC §8): main's space, the team's,
 * the folders under MNEMO_AGENTS_DIR, the registry that opens agents on demand, and the
 * gateway requests go through. Main and the team are always open; other agents open on
 * their first request.
 */
import fs from 'node:fs'
import type { Config } from '../config/config.js'
import type { SearchService } from '../search/search-service.js'
import { MAIN_AGENT, splitSpaceId } from '../shared/agent-id.js'
import type { Logger } from '../shared/logger.js'
import { indexOpenError } from '../store/data-dir.js'
import { createAgentGateway } from '../agents/agent-gateway.js'
import { AGENT_FOLDER, createAgentFolders } from '../agents/agent-folders.js'
import { createAgentRegistry, type SpaceFolders } from '../agents/agent-registry.js'
import { createUserFolders, USER_FOLDER } from '../agents/user-folders.js'
import type { SpaceKey } from '../store/port.js'
import type { AgentSpace } from '../agents/agent-space.js'
import { createAgentSpace } from './agent-space.js'
import type { SharedResources, SpaceDef } from '../agents/space-resources.js'
import { tokenAgent } from '../config/agent-tokens.js'
import { emptySpace } from '../agents/empty-space.js'

/** A folder as a real path, created when missing. */
function realDir(dir: string): string {
  fs.mkdirSync(dir, { recursive: true })
  return fs.realpathSync(dir)
}

export type AgentsDeps = {
  config: Pick<Config, 'workspace' | 'agents'> & { index: Pick<Config['index'], 'maxFileBytes'> }
  shared: SharedResources
  search: Pick<SearchService, 'search'>
  log: Logger
  now?: () => number
}

export async function createAgents(deps: AgentsDeps) {
  const { config, shared } = deps
  const { engine } = shared
  // Extra paths and session transcripts are main's; other agents and the team have the
  // plain layout (MEMORY.md, memory/).
  const plain = { sessionsDir: undefined, extraPaths: [], extraPathsWritable: false }
  const mainDef: SpaceDef = {
    name: MAIN_AGENT,
    space: 'agent',
    root: realDir(config.workspace.root),
    what: 'workspace (MNEMO_WORKSPACE)',
    key: { kind: 'agent', id: MAIN_AGENT },
    sessionsDir: config.workspace.sessionsDir,
    extraPaths: config.workspace.extraPaths,
    extraPathsWritable: config.workspace.extraPathsWritable,
    readOnly: false,
  }
  let main: AgentSpace
  try {
    main = await createAgentSpace(mainDef, shared)
  } catch (err) {
    throw indexOpenError(engine.locate(mainDef.key), err)
  }
  const { teamDir } = config.agents
  const team =
    teamDir === undefined
      ? null
      : await createAgentSpace(
          {
            ...plain,
            name: 'team',
            space: 'team',
            root: realDir(teamDir),
            what: 'team folder (MNEMO_TEAM_DIR)',
            key: { kind: 'team' },
            readOnly: !config.agents.teamWritable,
          },
          shared,
        )
  const log = deps.log.child({ module: 'agents' })
  const agentFolders = createAgentFolders({
    dirReal: config.agents.dir === undefined ? null : realDir(config.agents.dir),
    maxAgents: config.agents.maxAgents,
    log,
  })
  const users = createUserFolders({
    agents: agentFolders,
    mainRoot: mainDef.root,
    maxUsers: config.agents.maxUsers,
    log,
  })
  // Registry names: an agent's id, or `<agent>/<user>` for a user's memory inside it.
  const folders: SpaceFolders = {
    find: (id) => (splitSpaceId(id) ? users.find(id) : agentFolders.find(id)),
    create: (id, check) => (splitSpaceId(id) ? users.create(id, check) : agentFolders.create(id, check)),
    ids: agentFolders.ids,
    pin: (id, identity) => (splitSpaceId(id) ? users.pin(id, identity) : agentFolders.pin(id, identity)),
  }
  const keyOf = (id: string): SpaceKey => {
    const split = splitSpaceId(id)
    return split ? { kind: 'user', ...split } : { kind: 'agent', id }
  }
  const registry = createAgentRegistry({
    main,
    folders,
    known: new Set([...config.agents.tokens.keys()].map(tokenAgent).filter((id) => id !== MAIN_AGENT)),
    empty: (id) =>
      emptySpace(id, {
        embedding: shared.embedding.status,
        cache: shared.cache,
        engine,
        maxFileBytes: config.index.maxFileBytes,
        maxFolders: config.agents.maxFolders,
      }),
    maxOpen: config.agents.maxOpen,
    open: (id, folder, onFolderReplaced) => {
      const key = keyOf(id)
      return createAgentSpace(
        {
          ...plain,
          name: id,
          space: key.kind === 'user' ? 'user' : 'agent',
          root: folder.root,
          what: key.kind === 'user' ? USER_FOLDER : AGENT_FOLDER,
          expect: folder.identity,
          onFolderReplaced,
          key,
          readOnly: false,
        },
        shared,
      )
    },
    peek: async (id) => ({ ...(await engine.peekCounts(keyOf(id))), lastSync: null }),
    log,
    ...(deps.now && { now: deps.now }),
  })
  const gateway = createAgentGateway({
    registry,
    users: {
      list: users.users,
      remove: async (agent, user) => {
        const files = await users.remove(agent, user)
        await engine.dropSpace({ kind: 'user', agent, user })
        return files
      },
    },
    team,
    search: deps.search,
    maxFileBytes: config.index.maxFileBytes,
    grants: config.agents.grants,
    ownerAgents: config.agents.ownerAgents,
  })

  return {
    main,
    gateway,
    /** The agents (opened on use) and the team's space, for export and import. */
    registry,
    /** An agent's users (those with a folder under users/), for export. */
    users: users.users,
    team,
    /** Agents open now besides main (never more than MNEMO_MAX_OPEN_AGENTS). */
    openAgents: registry.openCount,
    /** Open spaces (main, the team, agents) that rescan because no inotify watch was left. */
    rescanning: (): number =>
      [main, team, ...registry.openSpaces()].filter((s) => s?.watchState().state === 'rescanning').length,
    /** Starts main's and the team's watchers and start-up syncs (resolves once the watchers are ready). */
    async start(): Promise<void> {
      await Promise.all([main.start(), team?.start()])
    },
    /** Closes every agent, main and the team. */
    async close(): Promise<void> {
      await Promise.all([registry.close(), main.close(), team?.close()])
    },
  }
}

export type Agents = Awaited<ReturnType<typeof createAgents>>
