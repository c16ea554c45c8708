/**
 * The agents' folders under MNEMO_AGENTS_DIR (SPEC §8): finding one, creating one for an
 * agent's first accepted write (at most MNEMO_MAX_AGENTS of them: 409 AGENT_LIMIT beyond),
 * and remembering the identity (device and inode) of each folder once its space opened, so
 * a folder replaced while mnemo runs — a symlink, another folder renamed into its place —
 * is refused with 409 PATH_CHANGED when the agent is opened again, not adopted. The
 * identities last for the process: a restart takes the folders as it finds them.
 */
import type { BigIntStats } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { folderReplaced, sameFolder, type FolderIdentity } from '../files/held-root.js'
import { isAgentId, MAIN_AGENT } from '../shared/agent-id.js'
import { appError } from '../shared/errors.js'
import { createKeyedMutex } from '../shared/keyed-mutex.js'
import type { Logger } from '../shared/logger.js'

/** An agent's folder in MNEMO_AGENTS_DIR, and its identity when it was looked up. */
export type FoundFolder = { kind: 'found'; root: string; identity: FolderIdentity }
export type FolderLookup = FoundFolder | { kind: 'missing' }

export type AgentFoldersDeps = {
  /** MNEMO_AGENTS_DIR as a real path, or null: only `main` exists. */
  dirReal: string | null
  maxAgents: number
  log: Logger
}

export const AGENT_FOLDER = 'agent folder'

const identityOf = (st: BigIntStats): FolderIdentity => ({ dev: st.dev, ino: st.ino })

export function createAgentFolders(deps: AgentFoldersDeps) {
  const { log } = deps
  /** Identities of the folders whose spaces opened since the start, by agent id. */
  const pinned = new Map<string, FolderIdentity>()
  /** Creations run one at a time, so concurrent first writes cannot pass MNEMO_MAX_AGENTS. */
  const creating = createKeyedMutex()

  const notFound = (id: string, why: string) =>
    appError('AGENT_NOT_FOUND', `No agent "${id}": ${why}`, { details: { agent: id } })

  function dirOf(id: string): string {
    if (!deps.dirReal) throw notFound(id, 'MNEMO_AGENTS_DIR is not set, so only "main" exists')
    return path.join(deps.dirReal, id)
  }

  /** The agent's folder, or missing; refuses a symlink and a folder other than the one opened before. */
  async function find(id: string): Promise<FolderLookup> {
    const root = dirOf(id)
    const st = await fs.lstat(root, { bigint: true }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err
      return null
    })
    const known = pinned.get(id)
    if (!st) {
      // Removed: the agent's next accepted write creates a new folder.
      pinned.delete(id)
      return { kind: 'missing' }
    }
    if (known && !(st.isDirectory() && sameFolder(identityOf(st), known))) throw folderReplaced(AGENT_FOLDER)
    // A symlinked agent folder could lead anywhere, including another agent's folder.
    if (!st.isDirectory()) throw notFound(id, 'its entry in MNEMO_AGENTS_DIR is not a plain folder')
    return { kind: 'found', root, identity: identityOf(st) }
  }

  /** Agent folders in MNEMO_AGENTS_DIR (plain folders named by an agent id). */
  async function ids(): Promise<string[]> {
    if (!deps.dirReal) return []
    const dirents = await fs.readdir(deps.dirReal, { withFileTypes: true })
    return dirents.filter((d) => d.isDirectory() && isAgentId(d.name) && d.name !== MAIN_AGENT).map((d) => d.name)
  }

  /**
   * Creates the agent's folder for its first accepted write. `check` runs
   * first and throws what the write would be refused with, so a refused write creates
   * nothing; then the count of agents is checked.
   */
  function create(id: string, check: () => void): Promise<FoundFolder> {
    const root = dirOf(id)
    return creating.run('create', async () => {
      const now = await find(id)
      if (now.kind === 'found') return now
      check()
      const count = (await ids()).length
      if (count >= deps.maxAgents) {
        throw appError('AGENT_LIMIT', undefined, { details: { maxAgents: deps.maxAgents } })
      }
      // Only the folder: what the write needs inside it is made through the held folder
      // (a recursive mkdir would follow a symlink put in its place meanwhile).
      await fs.mkdir(root).catch((err: NodeJS.ErrnoException) => {
        // Made meanwhile (by hand): find() below refuses it unless it is a plain folder.
        if (err.code !== 'EEXIST') throw err
      })
      log.info({ agent: id, agents: count + 1 }, 'created agent')
      const made = await find(id)
      if (made.kind === 'missing') throw appError('PATH_CHANGED')
      return made
    })
  }

  return {
    find,
    create,
    ids,
    /** Remembers the identity of the folder the agent's space opened. */
    pin: (id: string, identity: FolderIdentity): void => void pinned.set(id, identity),
  }
}

export type AgentFolders = ReturnType<typeof createAgentFolders>
