/**
 * Durable file changes for the write API. A path is resolved for writing segment by
 * segment from the workspace's real path: a missing folder is created one level at a time,
 * and a symlink anywhere on the way (folder or file) is refused, so a write can never land
 * outside the workspace or in a folder the scanner would not index. Replacing writes a
 * hidden temp file, fsyncs it and renames it over the target; appending is one write() on
 * an O_APPEND descriptor, then fsync; every change that adds or removes a name fsyncs the
 * folder too. A crash therefore leaves the old file or the new one, never a torn one.
 */
import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'

/** Temp files of interrupted replaces are hidden (never indexed) and carry this suffix. */
export const TEMP_SUFFIX = '.mnemo-tmp'

export type WritePath =
  | { kind: 'ok'; abs: string }
  | { kind: 'invalid'; reason: string }
  /** A folder on the way is missing and `create` was false. */
  | { kind: 'not-found' }

const errno = (err: unknown) => (err as NodeJS.ErrnoException).code

/**
 * Resolves workspace-relative `rel` (already checked syntactically) under `rootReal`,
 * creating missing folders when `create` is set.
 */
export async function resolveForWrite(rootReal: string, rel: string, create: boolean): Promise<WritePath> {
  const segments = rel.split('/')
  let dir = rootReal
  for (const segment of segments.slice(0, -1)) {
    dir = path.join(dir, segment)
    let st
    try {
      st = await fs.lstat(dir)
    } catch (err) {
      if (errno(err) !== 'ENOENT') throw err
      if (!create) return { kind: 'not-found' }
      try {
        await fs.mkdir(dir)
      } catch (mkdirErr) {
        // Another request created it meanwhile; it is checked like any existing folder.
        if (errno(mkdirErr) !== 'EEXIST') throw mkdirErr
      }
      st = await fs.lstat(dir)
    }
    if (st.isSymbolicLink()) return { kind: 'invalid', reason: 'the path goes through a symlinked folder' }
    if (!st.isDirectory()) return { kind: 'invalid', reason: 'a parent of the path is not a folder' }
  }
  const abs = path.join(dir, segments[segments.length - 1] as string)
  try {
    const st = await fs.lstat(abs)
    if (st.isSymbolicLink()) return { kind: 'invalid', reason: 'the file is a symlink' }
    if (!st.isFile()) return { kind: 'invalid', reason: 'not a regular file' }
  } catch (err) {
    if (errno(err) !== 'ENOENT') throw err
  }
  return { kind: 'ok', abs }
}

/** The file's bytes, or null when it does not exist. Never follows a symlink. */
export async function readIfExists(abs: string): Promise<Buffer | null> {
  let handle: fs.FileHandle
  try {
    handle = await fs.open(abs, constants.O_RDONLY | constants.O_NOFOLLOW)
  } catch (err) {
    if (errno(err) === 'ENOENT') return null
    throw err
  }
  try {
    return await handle.readFile()
  } finally {
    await handle.close()
  }
}

/** Makes a change to the names in `dir` durable. */
async function fsyncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, constants.O_RDONLY)
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/** Replaces (or creates) `abs` with `bytes`: temp file, fsync, rename, fsync of the folder. */
export async function replaceFile(abs: string, bytes: Uint8Array): Promise<void> {
  const temp = path.join(path.dirname(abs), `.${path.basename(abs)}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`)
  const handle = await fs.open(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o644,
  )
  try {
    await handle.writeFile(bytes)
    await handle.sync()
  } catch (err) {
    await handle.close()
    await fs.rm(temp, { force: true })
    throw err
  }
  await handle.close()
  try {
    await fs.rename(temp, abs)
  } catch (err) {
    await fs.rm(temp, { force: true })
    throw err
  }
  await fsyncDir(path.dirname(abs))
}

/**
 * Appends `bytes` to `abs` (creating it) in one write() on an O_APPEND descriptor, so
 * concurrent appenders never interleave within it, then fsyncs. Returns the file's size
 * and mtime after the write.
 */
export async function appendToFile(
  abs: string,
  bytes: Uint8Array,
  created: boolean,
): Promise<{ sizeBytes: number; mtimeMs: number }> {
  const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW
  const handle = await fs.open(abs, flags, 0o644)
  let after: { sizeBytes: number; mtimeMs: number }
  try {
    let written = 0
    while (written < bytes.length) {
      const { bytesWritten } = await handle.write(bytes, written, bytes.length - written)
      written += bytesWritten
    }
    await handle.sync()
    const st = await handle.stat()
    after = { sizeBytes: st.size, mtimeMs: st.mtimeMs }
  } finally {
    await handle.close()
  }
  if (created) await fsyncDir(path.dirname(abs))
  return after
}

/** Deletes `abs`; false when it was already gone. */
export async function deleteFile(abs: string): Promise<boolean> {
  try {
    await fs.unlink(abs)
  } catch (err) {
    if (errno(err) === 'ENOENT') return false
    throw err
  }
  await fsyncDir(path.dirname(abs))
  return true
}

/** Names replaceFile gives temp files: `.<name>.<12 hex>.mnemo-tmp`, next to `<name>`. */
const TEMP_NAME = /^\.(.+)\.[0-9a-f]{12}\.mnemo-tmp$/

/** The name of the file a temp file stands in for (in the same folder), or null. */
export function tempTarget(name: string): string | null {
  return TEMP_NAME.exec(name)?.[1] ?? null
}

/**
 * Deletes temp files that interrupted replaces left in `relDir` under `rootReal` (and
 * below it when `recursive`). A folder that is a symlink is not entered, so the sweep never
 * leaves the workspace. Each deletion holds the lock of the file the temp file stands in
 * for (`lock`, the write API's per-path lock): a replace in progress holds it until its
 * rename, so its temp file is never taken for a stale one. Returns how many were deleted.
 */
export async function removeStaleTempFiles(
  rootReal: string,
  relDir: string,
  recursive: boolean,
  lock: (rel: string, fn: () => Promise<void>) => Promise<void>,
): Promise<number> {
  const dirAbs = path.join(rootReal, ...relDir.split('/').filter(Boolean))
  let entries
  try {
    if (relDir !== '' && (await fs.lstat(dirAbs)).isSymbolicLink()) return 0
    entries = await fs.readdir(dirAbs, { withFileTypes: true })
  } catch (err) {
    if (errno(err) === 'ENOENT' || errno(err) === 'ENOTDIR') return 0
    throw err
  }
  let removed = 0
  for (const entry of entries) {
    const rel = relDir === '' ? entry.name : `${relDir}/${entry.name}`
    if (entry.isDirectory() && recursive) removed += await removeStaleTempFiles(rootReal, rel, true, lock)
    const target = entry.isFile() ? tempTarget(entry.name) : null
    if (target === null) continue
    await lock(relDir === '' ? target : `${relDir}/${target}`, async () => {
      try {
        await fs.unlink(path.join(dirAbs, entry.name))
        removed++
      } catch (err) {
        // Renamed by the replace that owned it, just before this took the lock.
        if (errno(err) !== 'ENOENT') throw err
      }
    })
  }
  return removed
}
