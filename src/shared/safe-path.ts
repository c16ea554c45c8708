/**
 * Path safety for everything a request names. A path from a request must be a plain
 * workspace-relative POSIX path: no `..` or `.` segments, no empty segments, no absolute
 * or drive paths, no backslashes, NUL or other control characters, and well-formed Unicode
 * (a lone surrogate becomes U+FFFD on disk, so several spellings would name one file under
 * several write locks). After that syntactic
 * check the path is resolved with realpath, so a symlink that leads out of the workspace is
 * refused as well.
 */
import fs from 'node:fs/promises'
import path from 'node:path'

export type PathCheck = { kind: 'ok'; rel: string } | { kind: 'invalid'; reason: string }

/** Longest accepted relative path, in characters. */
const MAX_PATH_CHARS = 1024
/** Longest file or folder name most file systems take (NAME_MAX), in bytes. */
const MAX_NAME_BYTES = 255
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/
/** A UTF-16 surrogate without its partner: not a character, and not representable in UTF-8. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** Syntactic check of a workspace-relative path (already URL-decoded once). */
export function checkRelPath(raw: string): PathCheck {
  if (raw.length === 0) return { kind: 'invalid', reason: 'empty path' }
  if (raw.length > MAX_PATH_CHARS) return { kind: 'invalid', reason: 'path too long' }
  if (CONTROL_CHARS.test(raw)) return { kind: 'invalid', reason: 'control character or NUL in path' }
  if (LONE_SURROGATE.test(raw)) return { kind: 'invalid', reason: 'not well-formed Unicode (a lone surrogate)' }
  if (raw.includes('\\')) return { kind: 'invalid', reason: 'backslash in path' }
  if (raw.startsWith('/') || /^[a-zA-Z]:/.test(raw)) return { kind: 'invalid', reason: 'absolute path' }
  const segments = raw.split('/')
  for (const segment of segments) {
    if (segment === '') return { kind: 'invalid', reason: 'empty path segment' }
    if (segment === '.' || segment === '..') return { kind: 'invalid', reason: 'relative segment (. or ..)' }
    if (Buffer.byteLength(segment) > MAX_NAME_BYTES) return { kind: 'invalid', reason: 'a name longer than 255 bytes' }
  }
  return { kind: 'ok', rel: raw }
}

export type Resolved = { kind: 'ok'; abs: string } | { kind: 'not-found' } | { kind: 'invalid'; reason: string }

/** True when `abs` is `root` or below it (both absolute, already real paths). */
export function isInside(root: string, abs: string): boolean {
  const rel = path.relative(root, abs)
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))
}

/**
 * Resolves a checked relative path against the workspace `root`, following symlinks, and
 * refuses a result outside it. `root` is a real path or names a held folder
 * (`/proc/self/fd/<fd>`, held-root.ts); the answer is under `root` as given, so it can be
 * opened through the held folder.
 */
export async function resolveInside(root: string, rel: string): Promise<Resolved> {
  const joined = path.join(root, ...rel.split('/'))
  let rootNow: string
  let real: string
  try {
    // Where the folder is now: the same as `root` for a real path.
    rootNow = await fs.realpath(root)
    real = await fs.realpath(joined)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'not-found' }
    if (code === 'ELOOP') return { kind: 'invalid', reason: 'symlink loop' }
    throw err
  }
  if (!isInside(rootNow, real)) return { kind: 'invalid', reason: 'path leaves the workspace through a symlink' }
  return { kind: 'ok', abs: path.join(root, path.relative(rootNow, real)) }
}
