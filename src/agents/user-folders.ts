/**
 * The folders of the users inside an agent (SPEC §11): `<agent folder>/users/<id>/`, each
 * a space of its own (its index, its sync), opened by the agent registry under the name
 * `<agent>/<user>`. Like agent folders (agent-folders.ts), a user's folder is created by
 * the user's first accepted write — the agent's folder with it when the agent has none —
 * at most MNEMO_MAX_USERS_PER_AGENT per agent (409 USER_LIMIT beyond), and `users/` and
 * every user folder must be plain folders: a symlink there could lead into another user's
 * memory or out of the workspace, so it is refused, never followed. The identity of a
 * user's folder is remembered once its space opened, so one replaced later is refused.
 */
import type { BigIntStats } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { folderReplaced, sameFolder, type FolderIdentity } from '../files/held-root.js'
import { isUserId, MAIN_AGENT, splitSpaceId, userSpaceId, USERS_DIR } from '../shared/agent-id.js'
import { appError } from '../shared/errors.js'
import { createKeyedMutex } from '../shared/keyed-mutex.js'
import type { Logger } from '../shared/logger.js'
import type { AgentFolders, FolderLookup, FoundFolder } from './agent-folders.js'

export const USER_FOLDER = 'user folder'

export type UserFoldersDeps = {
  agents: Pick<AgentFolders, 'find' | 'create'>
  /** MNEMO_WORKSPACE as a real path: main's users live under it. */
  mainRoot: string
  maxUsers: number
  log: Logger
}

const identityOf = (st: BigIntStats): FolderIdentity => ({ dev: st.dev, ino: st.ino })

/** What a path is, without following a symlink: null when nothing is there. */
const lstatOrNull = (p: string) =>
  fs.lstat(p, { bigint: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err
    return null
  })

/** A user's folder whose place holds something else than a plain folder: it is not used. */
const notPlain = () =>
  appError('PATH_CHANGED', `The ${USER_FOLDER} (or users/) is not a plain folder: refused, not followed`)

export function createUserFolders(deps: UserFoldersDeps) {
  const pinned = new Map<string, FolderIdentity>()
  /** Creations run one at a time per agent, so concurrent first writes cannot pass the limit. */
  const creating = createKeyedMutex()

  /** The agent's folder (null: it has none yet); with `create`, made for the write when missing. */
  async function agentRoot(agent: string, create: (() => void) | null): Promise<string | null> {
    if (agent === MAIN_AGENT) return deps.mainRoot
    const found = await deps.agents.find(agent)
    if (found.kind === 'found') return found.root
    return create ? (await deps.agents.create(agent, create)).root : null
  }

  /** `users/` in the agent's folder: null when missing; refused when not a plain folder. */
  async function usersDir(root: string): Promise<string | null> {
    const dir = path.join(root, USERS_DIR)
    const st = await lstatOrNull(dir)
    if (!st) return null
    if (!st.isDirectory()) throw notPlain()
    return dir
  }

  /** The user's folder, or missing; refuses a symlink and a folder other than the one opened before. */
  async function find(id: string): Promise<FolderLookup> {
    const { agent, user } = splitSpaceId(id) as { agent: string; user: string }
    const root = await agentRoot(agent, null)
    const dir = root && (await usersDir(root))
    const folder = dir && path.join(dir, user)
    const st = folder && (await lstatOrNull(folder))
    if (!folder || !st) {
      pinned.delete(id)
      return { kind: 'missing' }
    }
    const known = pinned.get(id)
    if (known && !(st.isDirectory() && sameFolder(identityOf(st), known))) throw folderReplaced(USER_FOLDER)
    if (!st.isDirectory()) throw notPlain()
    return { kind: 'found', root: folder, identity: identityOf(st) }
  }

  /** The users of an agent with a folder (plain folders under users/ named by a user id). */
  async function users(agent: string): Promise<string[]> {
    const root = await agentRoot(agent, null)
    const dir = root && (await usersDir(root))
    if (!dir) return []
    const dirents = await fs.readdir(dir, { withFileTypes: true })
    return dirents
      .filter((d) => d.isDirectory() && isUserId(d.name))
      .map((d) => d.name)
      .sort()
  }

  /**
   * Creates the user's folder (and the agent's, and `users/`) for its first accepted write.
   * `check` runs first and throws what the write would be refused with, so a refused write
   * creates nothing; then the agent's count of users is checked.
   */
  function create(id: string, check: () => void): Promise<FoundFolder> {
    const { agent, user } = splitSpaceId(id) as { agent: string; user: string }
    return creating.run(agent, async () => {
      const now = await find(id)
      if (now.kind === 'found') return now
      check()
      const root = (await agentRoot(agent, check)) as string
      const count = (await users(agent)).length
      if (count >= deps.maxUsers) throw appError('USER_LIMIT', undefined, { details: { maxUsers: deps.maxUsers } })
      const mkdir = (p: string) =>
        fs.mkdir(p).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'EEXIST') throw err
        })
      await mkdir(path.join(root, USERS_DIR))
      const dir = await usersDir(root)
      if (!dir) throw appError('PATH_CHANGED')
      await mkdir(path.join(dir, user))
      deps.log.info({ agent, users: count + 1 }, 'created user')
      const made = await find(id)
      if (made.kind === 'missing') throw appError('PATH_CHANGED')
      return made
    })
  }

  /**
   * Deletes the user's folder and everything in it (symlinks inside are removed, never
   * followed). The user's space must be closed. Answers the files removed, relative to it.
   */
  async function remove(agent: string, user: string): Promise<string[]> {
    const found = await find(userSpaceId(agent, user))
    if (found.kind === 'missing') return []
    const files: string[] = []
    const walk = async (dir: string, rel: string): Promise<void> => {
      for (const d of await fs.readdir(dir, { withFileTypes: true })) {
        const at = rel === '' ? d.name : `${rel}/${d.name}`
        if (d.isDirectory()) await walk(path.join(dir, d.name), at)
        else files.push(at)
      }
    }
    await walk(found.root, '')
    await fs.rm(found.root, { recursive: true, force: true })
    pinned.delete(userSpaceId(agent, user))
    return files.sort()
  }

  return {
    find,
    create,
    users,
    remove,
    pin: (id: string, identity: FolderIdentity): void => void pinned.set(id, identity),
  }
}

export type UserFolders = ReturnType<typeof createUserFolders>
