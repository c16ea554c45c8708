/**
 * Opening workspace files so that what is read or written is what was checked (issue 9).
 * A folder is reached from the workspace root one segment at a time, each opened relative
 * to its parent's descriptor without following symlinks (on Linux through
 * `/proc/self/fd/<fd>/<name>`, which acts like openat: a folder swapped for a symlink after
 * it was opened changes nothing). Files are then opened, created, renamed and deleted
 * inside that open folder. A file must be a regular file with one link: symlinks (unless
 * resolved beforehand), FIFOs, devices and hard links to files elsewhere are refused, and
 * nothing is ever opened in a way that could block (O_NONBLOCK).
 *
 * Where /proc is missing (macOS), paths are used instead and each segment is checked with
 * lstat: correct, but a swap between the check and the use is not caught there.
 */
import { constants, existsSync, type Stats } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'

const PROC_FD = '/proc/self/fd'
/** Whether descriptors can be named as paths (Linux). Read once: it is the host's nature. */
const HAS_PROC_FD = existsSync(PROC_FD)

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW
/** Added to every file open: never follow a final symlink, never block on a FIFO or device. */
const FILE_FLAGS = constants.O_NOFOLLOW | constants.O_NONBLOCK

const errno = (err: unknown) => (err as NodeJS.ErrnoException).code

/**
 * An open workspace folder. `at(name)` names an entry inside it, whatever happens to its
 * path; `sync()` makes changes to its names durable.
 */
export type Folder = { at(name: string): string; sync(): Promise<void>; close(): Promise<void> }

export type FolderResult = { kind: 'ok'; folder: Folder } | { kind: 'not-found' } | { kind: 'invalid'; reason: string }

function folderOf(handle: fs.FileHandle, abs: string): Folder {
  return {
    at: (name) => (HAS_PROC_FD ? `${PROC_FD}/${handle.fd}/${name}` : path.join(abs, name)),
    sync: () => handle.sync(),
    close: () => handle.close(),
  }
}

const SYMLINK_ON_THE_WAY = { kind: 'invalid', reason: 'the path goes through a symlink or a file' } as const

async function tryOpenDir(child: string): Promise<fs.FileHandle | 'not-found' | 'invalid'> {
  try {
    return await fs.open(child, DIR_FLAGS)
  } catch (err) {
    if (errno(err) === 'ENOTDIR' || errno(err) === 'ELOOP') return 'invalid'
    if (errno(err) === 'ENOENT') return 'not-found'
    throw err
  }
}

/** Creates the folder `child` names (an entry of an open folder); one that exists already is fine. */
export type MakeFolder = (child: string) => Promise<void>

export const makeFolder: MakeFolder = async (child) => {
  try {
    await fs.mkdir(child)
  } catch (err) {
    // Another request created it meanwhile; it is opened like any existing folder.
    if (errno(err) !== 'EEXIST') throw err
  }
}

/** Opens the folder `child` names (an entry of an open folder), creating it with `create` when given. */
async function openSegment(child: string, create: MakeFolder | null): Promise<fs.FileHandle | 'not-found' | 'invalid'> {
  const first = await tryOpenDir(child)
  if (first !== 'not-found' || !create) return first
  try {
    await create(child)
  } catch (err) {
    // ENOENT from mkdir inside an open folder: that folder was removed meanwhile (e.g. a
    // folder renamed over it while it was empty). Nothing can be made in it; the caller
    // refuses the request (PATH_CHANGED), and nothing is made anywhere else.
    if (errno(err) === 'ENOENT') return 'not-found'
    throw err
  }
  return tryOpenDir(child)
}

/**
 * Opens `relDir` (workspace-relative, '' for the root) under `root` (a real path, or a held
 * folder's descriptor path: held-root.ts), creating missing folders when `create` is set (a
 * function: it creates them, e.g. counting them against a limit). A segment that is a
 * symlink or not a folder is refused.
 */
export async function openFolder(root: string, relDir: string, create: boolean | MakeFolder): Promise<FolderResult> {
  const make = create === true ? makeFolder : create || null
  let handle = await fs.open(root, constants.O_RDONLY | constants.O_DIRECTORY)
  let abs = root
  let handedOut = false
  try {
    for (const segment of relDir.split('/').filter(Boolean)) {
      const next = await openSegment(folderOf(handle, abs).at(segment), make)
      if (next === 'not-found') return { kind: 'not-found' }
      if (next === 'invalid') return SYMLINK_ON_THE_WAY
      await handle.close()
      handle = next
      abs = path.join(abs, segment)
    }
    handedOut = true
    return { kind: 'ok', folder: folderOf(handle, abs) }
  } finally {
    if (!handedOut) await handle.close()
  }
}

export type OpenedFile =
  { kind: 'ok'; handle: fs.FileHandle; stat: Stats } | { kind: 'not-found' } | { kind: 'invalid'; reason: string }

/**
 * Checks what `handle` opened: a regular file with one link. A file with more links may be
 * a hard link to a file outside the workspace, which mnemo must neither read nor change.
 */
async function checkOpened(handle: fs.FileHandle): Promise<OpenedFile> {
  const stat = await handle.stat()
  if (!stat.isFile()) return { kind: 'not-found' }
  if (stat.nlink === 0) return { kind: 'not-found' }
  if (stat.nlink > 1)
    return { kind: 'invalid', reason: 'the file has other hard links (it may live outside the workspace)' }
  return { kind: 'ok', handle, stat }
}

/**
 * Opens the existing regular file `name` in `folder` with `flags` (O_RDONLY, or O_WRONLY |
 * O_APPEND). Anything else there (a symlink, a FIFO, a device, a folder, a hard link) is
 * refused before or right after opening, never read or written.
 */
export async function openFile(folder: Folder, name: string, flags: number): Promise<OpenedFile> {
  const at = folder.at(name)
  let st: Stats
  try {
    st = await fs.lstat(at)
  } catch (err) {
    if (errno(err) === 'ENOENT' || errno(err) === 'ENOTDIR') return { kind: 'not-found' }
    throw err
  }
  if (st.isSymbolicLink()) return { kind: 'invalid', reason: 'the file is a symlink' }
  // Not opened at all: opening a device can have effects of its own.
  if (!st.isFile()) return { kind: 'not-found' }
  let handle: fs.FileHandle
  try {
    handle = await fs.open(at, flags | FILE_FLAGS)
  } catch (err) {
    if (errno(err) === 'ENOENT') return { kind: 'not-found' }
    if (errno(err) === 'ELOOP') return { kind: 'invalid', reason: 'the file is a symlink' }
    if (errno(err) === 'ENXIO') return { kind: 'not-found' }
    throw err
  }
  const checked = await checkOpened(handle)
  if (checked.kind !== 'ok') await handle.close()
  return checked
}

/** Creates `name` in `folder` (it must not exist) with `flags`; null when it exists already. */
export async function createFile(folder: Folder, name: string, flags: number): Promise<fs.FileHandle | null> {
  try {
    return await fs.open(folder.at(name), flags | FILE_FLAGS | constants.O_CREAT | constants.O_EXCL, 0o644)
  } catch (err) {
    if (errno(err) === 'EEXIST') return null
    throw err
  }
}

export type ReadResult =
  | { kind: 'ok'; bytes: Buffer; sizeBytes: number; mtimeMs: number }
  | { kind: 'not-found' }
  | { kind: 'invalid'; reason: string }
  | { kind: 'too-large'; sizeBytes: number }

/** Reads the regular file `name` in `folder`, refusing one over `maxBytes` without reading it. */
export async function readFileIn(folder: Folder, name: string, maxBytes: number): Promise<ReadResult> {
  const opened = await openFile(folder, name, constants.O_RDONLY)
  if (opened.kind !== 'ok') return opened
  try {
    const { size, mtimeMs } = opened.stat
    if (size > maxBytes) return { kind: 'too-large', sizeBytes: size }
    const bytes = await opened.handle.readFile()
    return { kind: 'ok', bytes, sizeBytes: bytes.length, mtimeMs }
  } finally {
    await opened.handle.close()
  }
}

/** Splits a workspace-relative file path into its folder and name. */
export function splitRel(rel: string): { dir: string; name: string } {
  const at = rel.lastIndexOf('/')
  return at < 0 ? { dir: '', name: rel } : { dir: rel.slice(0, at), name: rel.slice(at + 1) }
}

/** Reads the regular file at `rel` under `root` (no symlink anywhere on the way). */
export async function readWorkspaceFile(root: string, rel: string, maxBytes: number): Promise<ReadResult> {
  const { dir, name } = splitRel(rel)
  const opened = await openFolder(root, dir, false)
  if (opened.kind !== 'ok') return opened
  try {
    return await readFileIn(opened.folder, name, maxBytes)
  } finally {
    await opened.folder.close()
  }
}
