/**
 * A space's folder held by identity (SPEC §8, issue 16): opened once when the space opens,
 * without following a symlink, and reached through that descriptor for its whole life
 * (`/proc/self/fd/<fd>` on Linux), so a folder replaced after it was opened — by a symlink,
 * or another folder renamed into its place — is never followed. check() compares what the
 * path names now with the held folder (device and inode): every request and every scan
 * calls it, and a replaced folder is refused with 409 PATH_CHANGED.
 *
 * Where /proc is missing (macOS) the path itself is used after the check: a swap between
 * the check and the use is not caught there.
 */
import { constants, existsSync, fstatSync, lstatSync, openSync, closeSync, type BigIntStats } from 'node:fs'
import { appError, isAppError, type AppError } from '../shared/errors.js'

const PROC_FD = '/proc/self/fd'
/** Whether descriptors can be named as paths (Linux). Read once: it is the host's nature. */
const HAS_PROC_FD = existsSync(PROC_FD)

/** A folder's identity on its file system. */
export type FolderIdentity = { dev: bigint; ino: bigint }

export const sameFolder = (a: FolderIdentity, b: FolderIdentity): boolean => a.dev === b.dev && a.ino === b.ino

/** `details` of the error a replaced folder gets, so callers can tell it from a moved sub-folder. */
const REPLACED = 'replaced'

/** The 409 PATH_CHANGED a request on a replaced folder gets; `what` names it for the client. */
export function folderReplaced(what: string): AppError {
  return appError(
    'PATH_CHANGED',
    `The ${what} was replaced after it was opened (a symlink or another folder in its place): refused, not followed`,
    { details: { folder: REPLACED } },
  )
}

/** Whether `err` says a held folder was replaced (folderReplaced). */
export function isFolderReplaced(err: unknown): boolean {
  return isAppError(err) && (err.details as { folder?: string } | undefined)?.folder === REPLACED
}

export type HeldRoot = {
  /** The folder's real path when it was opened (for the watcher and logs). */
  readonly path: string
  /** A path naming the held folder whatever becomes of `path`: /proc/self/fd/<fd> on Linux. */
  readonly dir: string
  /** Throws folderReplaced() unless `path` still names the held folder. */
  check: () => Promise<void>
  /** Whether the last check found the folder replaced. */
  replaced: () => boolean
  /** Releases the descriptor: only once nothing uses `dir` any more (its number is reused). */
  close: () => void
}

export type HoldRootOptions = {
  /** Names the folder in errors and logs: "agent folder", "team folder", "workspace". */
  what: string
  /** The identity the folder must have (seen when it was looked up): refused otherwise. */
  expect?: FolderIdentity
  /** Told when a check finds the folder replaced (once, until a check finds it back). */
  onReplaced?: () => void
}

const identityOf = (st: BigIntStats): FolderIdentity => ({ dev: st.dev, ino: st.ino })

/**
 * Opens the folder at `realPath` (a real path: its last segment may not be a symlink) and
 * holds it. Synchronous: a space is built in one step (agent-space.ts).
 */
export function holdRoot(realPath: string, opts: HoldRootOptions): HeldRoot {
  let fd: number
  try {
    fd = openSync(realPath, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    // A symlink (ELOOP), a file (ENOTDIR) or nothing where the folder was looked up a moment ago.
    if (code === 'ELOOP' || code === 'ENOTDIR' || (code === 'ENOENT' && opts.expect)) throw folderReplaced(opts.what)
    throw err
  }
  const held = identityOf(fstatSync(fd, { bigint: true }))
  if (opts.expect && !sameFolder(held, opts.expect)) {
    closeSync(fd)
    throw folderReplaced(opts.what)
  }
  let replaced = false
  let closed = false

  function refuse(): never {
    if (!replaced) opts.onReplaced?.()
    replaced = true
    throw folderReplaced(opts.what)
  }

  return {
    path: realPath,
    dir: HAS_PROC_FD ? `${PROC_FD}/${fd}` : realPath,
    check: async () => {
      let st: BigIntStats
      try {
        // Synchronous on purpose: one lstat of a folder costs about 1.3 µs of CPU, where the
        // promise version costs about 16 µs and a trip through libuv's thread pool, on every
        // request (issue 19: part of keyword /search's p50).
        st = lstatSync(realPath, { bigint: true })
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code
        if (code === 'ENOENT' || code === 'ENOTDIR') refuse()
        throw err
      }
      if (!st.isDirectory() || !sameFolder(identityOf(st), held)) refuse()
      replaced = false
    },
    replaced: () => replaced,
    close: () => {
      if (closed) return
      closed = true
      closeSync(fd)
    },
  }
}
