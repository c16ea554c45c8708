/**
 * Lists the source files (stat only, no reading or hashing): memory files in the workspace
 * and, when configured, transcripts in the sessions folder. Folders reached through a
 * symlink are not entered (no cycles, no escapes); a symlinked file is listed only when its
 * target is a regular file inside its root. The workspace is walked through its held folder
 * (held-root.ts), checked first: a workspace replaced after it was opened fails the scan.
 */
import type { Dirent } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { SESSIONS_PREFIX } from '../domain/layout.js'
import type { MemoryPaths } from '../files/memory-paths.js'
import { appError } from '../shared/errors.js'
import { isInside } from '../shared/safe-path.js'
import type { Source } from '../domain/chunks.js'

export type ScannedFile = {
  /** Workspace-relative POSIX path (transcripts: `sessions/<path in the folder>`). */
  rel: string
  abs: string
  /** The real path of the folder the file is read from (the workspace or the sessions folder). */
  root: string
  source: Source
  sizeBytes: number
  mtimeMs: number
}

/** The folders sources come from. */
export type SourceRoots = {
  /** The workspace, named through its held descriptor (held-root.ts) or as a real path. */
  workspace: string
  /** Throws when the workspace was replaced after it was opened (held-root.ts check()). */
  checkWorkspace?: () => Promise<void>
  /** The sessions folder's real path, or null when none is configured. */
  sessions: string | null
  paths: MemoryPaths
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code
  return code === 'ENOENT' || code === 'ENOTDIR'
}

/** The service may not look here (permissions): skip it and say so, never fail the sync. */
export function isUnreadable(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code
  return code === 'EACCES' || code === 'EPERM'
}

/** Called with each file or folder that could not be read, and why. */
export type OnUnreadable = (rel: string, err: unknown) => void

/** A folder sources are read from: as named (`dir`), and where it is now (`real`, for symlink targets). */
type Root = { dir: string; real: string }

/**
 * Stats one candidate; null when it is missing, not a regular file, links out of `root`,
 * or has other hard links (it may be a file outside the workspace: never read).
 */
async function statFile(
  root: Root,
  rel: string,
  abs: string,
  source: Source,
  viaLink: boolean,
  onUnreadable: OnUnreadable,
): Promise<ScannedFile | null> {
  try {
    const target = viaLink ? await fs.realpath(abs) : abs
    if (viaLink && !isInside(root.real, target)) return null
    const st = await fs.stat(target)
    if (!st.isFile() || st.nlink > 1) return null
    // A link's target, named under the root as given (so it is read through the held folder).
    const file = viaLink ? path.join(root.dir, path.relative(root.real, target)) : abs
    return { rel, abs: file, root: root.dir, source, sizeBytes: st.size, mtimeMs: st.mtimeMs }
  } catch (err) {
    if (isMissing(err)) return null
    if (isUnreadable(err)) {
      onUnreadable(rel, err)
      return null
    }
    throw err
  }
}

/**
 * Files a scan stats at once: each await costs a turn of the event loop, which background
 * work may take a slice of, and a folder of thousands of files was that many turns one by one.
 */
const STATS_AT_ONCE = 16

/**
 * Walks `relDir` under `root` depth-first in name order, calling `onFile` for files and
 * links, up to STATS_AT_ONCE of one folder at a time (in order: the calls themselves keep
 * the order). Stops with `signal`'s reason once it aborts.
 */
async function walk(
  root: string,
  relDir: string,
  onFile: (rel: string, viaLink: boolean) => Promise<void>,
  onUnreadable: OnUnreadable,
  signal: AbortSignal | undefined,
): Promise<void> {
  signal?.throwIfAborted()
  let entries: Dirent[]
  try {
    entries = await fs.readdir(path.join(root, relDir), { withFileTypes: true })
  } catch (err) {
    if (isMissing(err)) return
    if (isUnreadable(err)) return onUnreadable(relDir, err)
    throw err
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  let stats: Promise<void>[] = []
  const settle = async () => {
    await Promise.all(stats)
    stats = []
    signal?.throwIfAborted()
  }
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue
    const rel = relDir === '' ? entry.name : `${relDir}/${entry.name}`
    if (entry.isDirectory()) {
      await settle()
      await walk(root, rel, onFile, onUnreadable, signal)
    } else if (entry.isFile() || entry.isSymbolicLink()) {
      stats.push(onFile(rel, entry.isSymbolicLink()))
      if (stats.length >= STATS_AT_ONCE) await settle()
    }
  }
  await settle()
}

/** `dir` with the real path of the folder it names now. */
const rootOf = async (dir: string): Promise<Root> => ({ dir, real: await fs.realpath(dir) })

/**
 * The workspace as a Root. Its real path is read through the held descriptor; a folder
 * renamed at that moment makes that fail (ENOENT): it is moving, so the scan is refused
 * with 409 PATH_CHANGED (a replaced folder says so first), not failed with a 500.
 */
async function workspaceRoot(roots: SourceRoots): Promise<Root> {
  try {
    return await rootOf(roots.workspace)
  } catch (err) {
    if (!isMissing(err)) throw err
    await roots.checkWorkspace?.()
    throw appError('PATH_CHANGED', 'The workspace folder was moved while it was being scanned', { cause: err })
  }
}

/**
 * Every source file, in scan order (the workspace's scan roots, then the sessions folder;
 * each walked depth-first in name order). Stops with `signal`'s reason once it aborts.
 */
export async function scanSources(
  roots: SourceRoots,
  onUnreadable: OnUnreadable,
  signal?: AbortSignal,
): Promise<ScannedFile[]> {
  await roots.checkWorkspace?.()
  const workspace = await workspaceRoot(roots)
  // A file's place is taken when its stat begins (null until it ends), so stats that end
  // out of order still list files in scan order.
  const found = new Map<string, ScannedFile | null>()
  const add = async (root: Root, rel: string, inner: string, source: Source, viaLink: boolean) => {
    if (found.has(rel)) return
    found.set(rel, null)
    const file = await statFile(root, rel, path.join(root.dir, ...inner.split('/')), source, viaLink, onUnreadable)
    if (file) found.set(rel, file)
    else found.delete(rel)
  }
  const memoryFile = (rel: string, viaLink: boolean) =>
    roots.paths.isSource(rel) ? add(workspace, rel, rel, 'memory', viaLink) : Promise.resolve()

  for (const start of roots.paths.scanRoots()) {
    let st
    try {
      st = await fs.lstat(path.join(roots.workspace, start))
    } catch (err) {
      if (isMissing(err)) continue
      if (isUnreadable(err)) {
        onUnreadable(start, err)
        continue
      }
      throw err
    }
    if (st.isDirectory()) await walk(roots.workspace, start, memoryFile, onUnreadable, signal)
    else if (st.isFile() || st.isSymbolicLink()) await memoryFile(start, st.isSymbolicLink())
  }
  const sessions =
    roots.sessions &&
    (await rootOf(roots.sessions).catch((err: unknown) => {
      if (isMissing(err)) return null
      throw err
    }))
  if (sessions) {
    await walk(
      sessions.dir,
      '',
      async (inner, viaLink) => {
        const rel = `${SESSIONS_PREFIX}/${inner}`
        if (roots.paths.classify(rel).kind === 'sessions') await add(sessions, rel, inner, 'sessions', viaLink)
      },
      (inner, err) => onUnreadable(`${SESSIONS_PREFIX}/${inner}`, err),
      signal,
    )
  }
  return [...found.values()].filter((file) => file !== null)
}

/**
 * Stats the source at `rel` for a targeted sync (the write API, the watcher). Null when
 * there is no such source file: missing, not a source, a folder, a symlink out of its root,
 * or below a symlinked folder (which the scanner would not enter either).
 */
export async function statSource(
  roots: SourceRoots,
  rel: string,
  onUnreadable: OnUnreadable,
): Promise<ScannedFile | null> {
  const kind = roots.paths.classify(rel)
  if (kind.kind === 'none') return null
  const dir = kind.kind === 'sessions' ? roots.sessions : roots.workspace
  if (!dir) return null
  if (kind.kind !== 'sessions') await roots.checkWorkspace?.()
  const inner = kind.kind === 'sessions' ? kind.inner : rel
  const abs = path.join(dir, ...inner.split('/'))
  const root =
    kind.kind === 'sessions'
      ? await rootOf(dir).catch((err: unknown) => {
          if (isMissing(err)) return null
          throw err
        })
      : await workspaceRoot(roots)
  if (!root) return null
  try {
    const realParent = await fs.realpath(path.dirname(abs))
    if (realParent !== path.dirname(path.join(root.real, ...inner.split('/')))) return null
    const st = await fs.lstat(abs)
    return await statFile(root, rel, abs, kind.kind, st.isSymbolicLink(), onUnreadable)
  } catch (err) {
    if (isMissing(err)) return null
    if (isUnreadable(err)) {
      onUnreadable(rel, err)
      return null
    }
    throw err
  }
}
