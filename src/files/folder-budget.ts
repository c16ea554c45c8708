/**
 * The cap on folders in one space (MNEMO_MAX_FOLDERS_PER_AGENT, issue 16). Every folder of
 * an open space is one inotify watch, and the per-user budget of watches is shared by every
 * process of that uid: a write that would create a folder past the cap gets 409
 * FOLDER_LIMIT. Folders are counted on disk (those made by hand too) under the space's
 * source folders (memory/ itself included; hidden ones are never watched and not counted),
 * and created one at a time per space, so concurrent writes cannot overshoot.
 */
import type { Dirent } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { appError } from '../shared/errors.js'
import { createKeyedMutex } from '../shared/keyed-mutex.js'
import { makeFolder, type MakeFolder } from './workspace-fs.js'

export type FolderBudgetDeps = {
  /** The workspace folder (a held folder's descriptor path: held-root.ts). */
  root: string
  /** Workspace-relative source roots (MEMORY.md, memory, extra paths): folders among them are counted. */
  scanRoots: readonly string[]
  maxFolders: number
}

const isMissing = (err: unknown) => ['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '')

/** Folders at and below `dir` (not following symlinks, skipping hidden ones), counting up to `limit`. */
async function countTree(dir: string, limit: number): Promise<number> {
  let entries: Dirent[]
  try {
    entries = await fs.readdir(dir, { withFileTypes: true })
  } catch (err) {
    if (isMissing(err)) return 0
    throw err
  }
  let n = 1
  for (const entry of entries) {
    if (n >= limit) break
    if (entry.isDirectory() && !entry.name.startsWith('.')) n += await countTree(path.join(dir, entry.name), limit - n)
  }
  return n
}

export function createFolderBudget(deps: FolderBudgetDeps) {
  const lock = createKeyedMutex()

  /** Folders the space has now, counted up to the cap (it never needs to know more). */
  async function count(): Promise<number> {
    let n = 0
    for (const start of deps.scanRoots) {
      if (n >= deps.maxFolders) break
      const abs = path.join(deps.root, ...start.split('/'))
      const st = await fs.lstat(abs).catch((err: unknown) => {
        if (isMissing(err)) return null
        throw err
      })
      if (st?.isDirectory()) n += await countTree(abs, deps.maxFolders - n)
    }
    return n
  }

  /** Creates a folder for a write, or refuses with FOLDER_LIMIT when the space has as many as allowed. */
  const make: MakeFolder = (child) =>
    lock.run('folders', async () => {
      if ((await count()) >= deps.maxFolders) {
        throw appError(
          'FOLDER_LIMIT',
          `This memory already has ${deps.maxFolders} folders (MNEMO_MAX_FOLDERS_PER_AGENT): write into an existing one`,
          { details: { maxFolders: deps.maxFolders } },
        )
      }
      await makeFolder(child)
    })

  return { make, count }
}

export type FolderBudget = ReturnType<typeof createFolderBudget>
