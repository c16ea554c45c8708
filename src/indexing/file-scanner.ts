/**
 * Lists the memory source files of a workspace (stat only, no reading or hashing). Folders
 * reached through a symlink are not entered (no cycles, no escapes); a symlinked file is
 * listed only when its target is a regular file inside the workspace.
 */
import type { Dirent } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import type { MemoryPaths } from '../files/memory-paths.js'
import { isInside } from '../shared/safe-path.js'

export type ScannedFile = {
  /** Workspace-relative POSIX path. */
  rel: string
  abs: string
  sizeBytes: number
  mtimeMs: number
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code
  return code === 'ENOENT' || code === 'ENOTDIR'
}

export async function scanWorkspace(rootReal: string, paths: MemoryPaths): Promise<ScannedFile[]> {
  const found = new Map<string, ScannedFile>()

  async function addFile(rel: string, abs: string, viaLink: boolean): Promise<void> {
    if (found.has(rel) || !paths.isSource(rel)) return
    try {
      const target = viaLink ? await fs.realpath(abs) : abs
      if (viaLink && !isInside(rootReal, target)) return
      const st = await fs.stat(target)
      if (st.isFile()) found.set(rel, { rel, abs: target, sizeBytes: st.size, mtimeMs: st.mtimeMs })
    } catch (err) {
      if (!isMissing(err)) throw err
    }
  }

  async function walk(relDir: string): Promise<void> {
    let entries: Dirent[]
    try {
      entries = await fs.readdir(path.join(rootReal, relDir), { withFileTypes: true })
    } catch (err) {
      if (isMissing(err)) return
      throw err
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue
      const rel = `${relDir}/${entry.name}`
      if (entry.isDirectory()) await walk(rel)
      else if (entry.isFile() || entry.isSymbolicLink()) {
        await addFile(rel, path.join(rootReal, rel), entry.isSymbolicLink())
      }
    }
  }

  for (const root of paths.scanRoots()) {
    const abs = path.join(rootReal, root)
    let st
    try {
      st = await fs.lstat(abs)
    } catch (err) {
      if (isMissing(err)) continue
      throw err
    }
    if (st.isDirectory()) await walk(root)
    else if (st.isFile() || st.isSymbolicLink()) await addFile(root, abs, st.isSymbolicLink())
  }
  return [...found.values()]
}
