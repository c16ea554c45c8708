/**
 * Durable file changes for the write API, made inside the open folder of the target
 * (workspace-fs.ts): the folder is reached from the workspace root one segment at a time
 * without following symlinks, missing folders are created one level at a time, and the file
 * itself must be a regular file with one link. A write therefore never lands outside the
 * workspace, also when a folder is swapped for a symlink while it runs.
 *
 * Replacing writes a hidden temp file, fsyncs it and renames it over the target; appending
 * is one write() on an O_APPEND descriptor, then fsync; every change that adds or removes
 * a name fsyncs the folder too. A crash therefore leaves the old file or the new one, never
 * a torn one; a write that fails (a full disk) is undone: an append is truncated back to
 * the size the file had, a file it created is removed, a replace leaves no temp file.
 */
import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import fs from 'node:fs/promises'
import { appError } from '../shared/errors.js'
import { createFile, openFile, openFolder, splitRel, type Folder, type MakeFolder } from './workspace-fs.js'

/** Temp files of interrupted replaces are hidden (never indexed) and carry this suffix. */
export const TEMP_SUFFIX = '.mnemo-tmp'

const errno = (err: unknown) => (err as NodeJS.ErrnoException).code

/**
 * The calls a write can fail in after it has started changing a file: tests inject a full
 * disk here, through the container.
 */
export type WritePort = {
  write(handle: fs.FileHandle, bytes: Uint8Array, offset: number, length: number): Promise<{ bytesWritten: number }>
  sync(handle: fs.FileHandle): Promise<void>
  /** Sets the file's access and modification times, in seconds since the epoch. */
  setTimes(handle: fs.FileHandle, seconds: number): Promise<void>
  /** Makes a folder's changed names durable (after a rename, a new file, an unlink). */
  syncFolder(folder: Folder): Promise<void>
}

export const nodeWritePort: WritePort = {
  write: (handle, bytes, offset, length) => handle.write(bytes, offset, length),
  sync: (handle) => handle.sync(),
  setTimes: (handle, seconds) => handle.utimes(seconds, seconds),
  syncFolder: (folder) => folder.sync(),
}

/** The file a write changes: its name in its open folder. */
export type WriteTarget = { folder: Folder; name: string }

/**
 * Runs `fn` with the open folder of workspace-relative `rel` (checked syntactically
 * before), creating missing folders when `create` is set (with it, when a function); `fn`
 * gets null when a folder is missing and `create` is not set. A symlink on the way, or at
 * the file, is PATH_INVALID.
 */
export async function withWriteTarget<T>(
  root: string,
  rel: string,
  create: boolean | MakeFolder,
  fn: (target: WriteTarget | null) => Promise<T>,
): Promise<T> {
  const { dir, name } = splitRel(rel)
  const opened = await openFolder(root, dir, create)
  if (opened.kind === 'invalid') throw appError('PATH_INVALID', `Invalid path: ${opened.reason}`)
  // Created, then gone before it could be opened: something else is moving folders.
  if (opened.kind === 'not-found' && create !== false) throw appError('PATH_CHANGED')
  if (opened.kind === 'not-found') return fn(null)
  try {
    return await fn({ folder: opened.folder, name })
  } finally {
    await opened.folder.close()
  }
}

/**
 * Runs a call that names an entry of an open folder: ENOENT there means the folder itself
 * was removed meanwhile (its entries cannot vanish otherwise while the write holds the
 * file's lock), which is PATH_CHANGED, not a server error.
 */
async function inFolder<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (err) {
    if (errno(err) === 'ENOENT') throw appError('PATH_CHANGED', undefined, { cause: err })
    throw err
  }
}

/** Opens the target's existing file; null when there is none, PATH_INVALID when it is no plain file. */
async function openExisting(target: WriteTarget, flags: number): Promise<fs.FileHandle | null> {
  const opened = await openFile(target.folder, target.name, flags)
  if (opened.kind === 'invalid') throw appError('PATH_INVALID', `Invalid path: ${opened.reason}`)
  if (opened.kind === 'not-found') {
    // A folder, FIFO or device under that name: not a file anyone can write.
    const st = await fs.lstat(target.folder.at(target.name)).catch(() => null)
    if (st) throw appError('PATH_INVALID', 'Invalid path: not a regular file')
    return null
  }
  return opened.handle
}

/** What the target's name is now, without opening it: nothing, a regular file, or something else. */
export async function entryKind(target: WriteTarget): Promise<'missing' | 'file' | 'other'> {
  try {
    const st = await fs.lstat(target.folder.at(target.name))
    return st.isFile() ? 'file' : 'other'
  } catch (err) {
    if (errno(err) === 'ENOENT') return 'missing'
    throw err
  }
}

/** The file's bytes, or null when it does not exist. Never follows a symlink. */
export async function readIfExists(target: WriteTarget): Promise<Buffer | null> {
  const handle = await openExisting(target, constants.O_RDONLY)
  if (!handle) return null
  try {
    return await handle.readFile()
  } finally {
    await handle.close()
  }
}

/** Size and mtime of the target's file, or null when there is none (no read). */
/**
 * What tells one version of a file from another without reading it: size and mtime, and
 * the change time and inode, which no writer can set (an import sets mtime from its archive,
 * in whole seconds: another content of the same size can carry the same mtime).
 */
export type FileVersion = { sizeBytes: number; mtimeMs: number; ctimeMs: number; ino: number }

const versionOf = (st: { size: number; mtimeMs: number; ctimeMs: number; ino: number }): FileVersion => ({
  sizeBytes: st.size,
  mtimeMs: st.mtimeMs,
  ctimeMs: st.ctimeMs,
  ino: st.ino,
})

/** Whether two versions are the same file, unchanged. */
export const sameVersion = (a: FileVersion, b: FileVersion): boolean =>
  a.sizeBytes === b.sizeBytes && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino

export async function statIfExists(target: WriteTarget): Promise<FileVersion | null> {
  const handle = await openExisting(target, constants.O_RDONLY)
  if (!handle) return null
  try {
    return versionOf(await handle.stat())
  } finally {
    await handle.close()
  }
}

/**
 * Writes all of `bytes` at the handle's position (or the end, with O_APPEND), sets the
 * modification time (ms since the epoch) when given, then fsyncs.
 */
async function writeAll(port: WritePort, handle: fs.FileHandle, bytes: Uint8Array, mtimeMs?: number): Promise<void> {
  let written = 0
  while (written < bytes.length) {
    const { bytesWritten } = await port.write(handle, bytes, written, bytes.length - written)
    written += bytesWritten
  }
  if (mtimeMs !== undefined) await port.setTimes(handle, mtimeMs / 1000)
  await port.sync(handle)
}

/**
 * Replaces (or creates) the target with `bytes`: temp file, fsync, rename, fsync of the
 * folder. `mtimeMs` is set on the temp file, so a failure to set it changes nothing.
 */
export async function replaceFile(
  target: WriteTarget,
  bytes: Uint8Array,
  port: WritePort,
  mtimeMs?: number,
): Promise<void> {
  const temp = `.${target.name}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`
  const handle = await inFolder(() => createFile(target.folder, temp, constants.O_WRONLY))
  if (!handle) throw new Error('temp file name collision')
  try {
    await writeAll(port, handle, bytes, mtimeMs)
  } catch (err) {
    await handle.close()
    await fs.rm(target.folder.at(temp), { force: true })
    throw err
  }
  await handle.close()
  try {
    await inFolder(() => fs.rename(target.folder.at(temp), target.folder.at(target.name)))
  } catch (err) {
    await fs.rm(target.folder.at(temp), { force: true })
    throw err
  }
  await port.syncFolder(target.folder)
}

/**
 * Appends `bytes` to the target's file (creating it) in one write() on an O_APPEND
 * descriptor, so concurrent appenders never interleave within it, then fsyncs. When the
 * write fails part-way (a full disk), the file is truncated back to its size before (a file
 * this call created is removed), so it is byte-for-byte as it was. Returns the file's
 * version after the write, and whether it was created.
 */
export async function appendToFile(
  target: WriteTarget,
  bytes: Uint8Array,
  port: WritePort,
): Promise<FileVersion & { created: boolean }> {
  const flags = constants.O_WRONLY | constants.O_APPEND
  let handle = await openExisting(target, flags)
  let created = false
  if (!handle) {
    handle = await inFolder(() => createFile(target.folder, target.name, flags))
    created = handle !== null
    // Created by another program meanwhile: append to it like to any existing file.
    handle ??= await openExisting(target, flags)
    if (!handle) throw appError('PATH_CHANGED')
  }
  try {
    const sizeBefore = created ? 0 : (await handle.stat()).size
    try {
      await writeAll(port, handle, bytes)
    } catch (err) {
      await undoAppend(target, handle, sizeBefore, created)
      throw err
    }
    const st = await handle.stat()
    if (created) await port.syncFolder(target.folder)
    return { ...versionOf(st), created }
  } finally {
    await handle.close()
  }
}

/** Puts a file back as it was before a failed append: truncated back, or removed if new. */
async function undoAppend(target: WriteTarget, handle: fs.FileHandle, sizeBefore: number, created: boolean) {
  if (created) {
    await fs.rm(target.folder.at(target.name), { force: true })
    return
  }
  await handle.truncate(sizeBefore)
  await handle.sync()
}

/** Deletes the target's file; false when it was already gone. */
export async function deleteFile(target: WriteTarget, port: WritePort): Promise<boolean> {
  try {
    await fs.unlink(target.folder.at(target.name))
  } catch (err) {
    if (errno(err) === 'ENOENT') return false
    throw err
  }
  await port.syncFolder(target.folder)
  return true
}

/** Names replaceFile gives temp files: `.<name>.<12 hex>.mnemo-tmp`, next to `<name>`. */
const TEMP_NAME = /^\.(.+)\.[0-9a-f]{12}\.mnemo-tmp$/

/** The name of the file a temp file stands in for (in the same folder), or null. */
export function tempTarget(name: string): string | null {
  return TEMP_NAME.exec(name)?.[1] ?? null
}

/**
 * Deletes temp files that interrupted replaces left in `relDir` under `root` (and
 * below it when `recursive`). Folders are opened like a write opens them, so a symlinked
 * folder is never entered and the sweep never leaves the workspace. Each deletion holds the
 * lock of the file the temp file stands in for (`lock`, the write API's per-path lock): a
 * replace in progress holds it until its rename, so its temp file is never taken for a
 * stale one. Returns how many were deleted.
 */
export async function removeStaleTempFiles(
  root: string,
  relDir: string,
  recursive: boolean,
  lock: (rel: string, fn: () => Promise<void>) => Promise<void>,
): Promise<number> {
  const opened = await openFolder(root, relDir, false)
  if (opened.kind !== 'ok') return 0
  const { folder } = opened
  let removed = 0
  const subfolders: string[] = []
  try {
    for (const entry of await fs.readdir(folder.at('.'), { withFileTypes: true })) {
      const rel = relDir === '' ? entry.name : `${relDir}/${entry.name}`
      if (entry.isDirectory()) subfolders.push(rel)
      const target = entry.isFile() ? tempTarget(entry.name) : null
      if (target === null) continue
      await lock(relDir === '' ? target : `${relDir}/${target}`, async () => {
        try {
          await fs.unlink(folder.at(entry.name))
          removed++
        } catch (err) {
          // Renamed by the replace that owned it, just before this took the lock.
          if (errno(err) !== 'ENOENT') throw err
        }
      })
    }
  } finally {
    await folder.close()
  }
  if (recursive) for (const rel of subfolders) removed += await removeStaleTempFiles(root, rel, true, lock)
  return removed
}
