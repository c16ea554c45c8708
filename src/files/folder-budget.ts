/**
 * The cap on folders in one space (MNEMO_MAX_FOLDERS_PER_AGENT, issue 16). Every folder of
 * an open space is one inotify watch, and the per-user budget of watches is shared by every
 * process of that uid: a write that would create a folder past the cap gets 409
 * FOLDER_LIMIT. Folders are counted on disk (those made by hand too) under the space's
 * source folders (memory/ itself included; hidden ones are never watched and not counted),
 * and created one at a time per space, so concurrent writes cannot overshoot. A batch of
 * writes (POST /import) surveys the folders it needs first, so it can be refused whole
 * before it makes any, and removes the empty ones it made when it is undone.
 */
import type { Dirent } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { appError } from '../shared/errors.js'
import { createKeyedMutex } from '../shared/keyed-mutex.js'
import { makeFolder, openFolder, splitRel, type MakeFolder } from './workspace-fs.js'

export type FolderBudgetDeps = {
  /** The workspace folder (a held folder's descriptor path: held-root.ts). */
  root: string
  /** Workspace-relative source roots (MEMORY.md, memory, extra paths): folders among them are counted. */
  scanRoots: readonly string[]
  maxFolders: number
}

const isMissing = (err: unknown) => ['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '')

/** What a space's folders are now, for a batch of writes checked before any of them runs. */
export type FolderSurvey = {
  /** Folders the space has, counted up to the cap. */
  have: number
  maxFolders: number
  /** The folders asked about that do not exist yet → whether each would count against the cap. */
  missing: ReadonlyMap<string, boolean>
}

/** Whether a workspace-relative folder counts against the cap: at or below a source folder. */
const countedUnder = (scanRoots: readonly string[]) => (dir: string) =>
  scanRoots.some((start) => dir === start || dir.startsWith(`${start}/`))

/** The survey of a space that does not exist yet (an agent an import would create): no folder at all. */
export function surveyOfNothing(dirs: readonly string[], scanRoots: readonly string[], maxFolders: number) {
  const counted = countedUnder(scanRoots)
  return { have: 0, maxFolders, missing: new Map(dirs.map((dir) => [dir, counted(dir)])) } satisfies FolderSurvey
}

/** Errors of an rmdir that mean "leave it": gone already, not empty (someone wrote there), not a folder. */
const LEFT_AS_IS = ['ENOENT', 'ENOTEMPTY', 'EEXIST', 'ENOTDIR']

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

  const isCounted = countedUnder(deps.scanRoots)

  /** Folders among `dirs` (workspace-relative) that do not exist, and how many the space has. */
  async function survey(dirs: readonly string[]): Promise<FolderSurvey> {
    const missing = new Map<string, boolean>()
    for (const dir of dirs) {
      const st = await fs.lstat(path.join(deps.root, ...dir.split('/'))).catch((err: unknown) => {
        if (isMissing(err)) return null
        throw err
      })
      // Anything there (a folder, or a file the write will be refused over) is not made.
      if (!st) missing.set(dir, isCounted(dir))
    }
    return { have: await count(), maxFolders: deps.maxFolders, missing }
  }

  /**
   * Removes the folders `dirs` names that are empty, deepest first (an undone import's),
   * through the held workspace folder without following symlinks. A folder something was
   * written into meanwhile stays; a write that had just opened an empty one gets 409
   * PATH_CHANGED (nothing written; a retry makes it again).
   */
  const removeEmpty = (dirs: readonly string[]): Promise<void> =>
    lock.run('folders', async () => {
      const deepestFirst = [...dirs].sort((a, b) => b.split('/').length - a.split('/').length)
      for (const dir of deepestFirst) {
        const { dir: parent, name } = splitRel(dir)
        const opened = await openFolder(deps.root, parent, false)
        if (opened.kind !== 'ok') continue
        try {
          await fs.rmdir(opened.folder.at(name))
        } catch (err) {
          if (!LEFT_AS_IS.includes((err as NodeJS.ErrnoException).code ?? '')) throw err
        } finally {
          await opened.folder.close()
        }
      }
    })

  return { make, count, survey, removeEmpty }
}

export type FolderBudget = ReturnType<typeof createFolderBudget>
