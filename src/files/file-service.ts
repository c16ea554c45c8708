/**
 * Reads memory files for the file API (the agent's `memory_get`). A requested path must pass
 * the syntactic check, be a memory source by policy, and resolve (through symlinks) inside
 * the workspace; the file is then opened folder by folder from the root without following
 * symlinks (workspace-fs.ts), so a symlink swapped in after the check is refused, and it
 * must be a regular file with one link. Lookups return a union; the route maps it to a status.
 */
import path from 'node:path'
import { sha256 } from '../domain/hashing.js'
import { checkRelPath, resolveInside } from '../shared/safe-path.js'
import type { SpaceStore } from '../store/port.js'
import type { Source } from '../domain/chunks.js'
import { decodeText, splitLines } from '../text/lines.js'
import type { MemoryPaths } from './memory-paths.js'
import { readWorkspaceFile } from './workspace-fs.js'

export type FileWindow = {
  path: string
  from: number
  to: number
  totalLines: number
  text: string
  sha256: string
}

export type ReadResult =
  | ({ kind: 'ok' } & FileWindow)
  | { kind: 'not-found' }
  | { kind: 'invalid'; reason: string }
  | { kind: 'too-large'; sizeBytes: number }

/** A whole file's bytes (GET /export), or why it cannot be read. */
export type BytesResult =
  { kind: 'ok'; path: string; bytes: Buffer; sizeBytes: number; mtimeMs: number } | Exclude<ReadResult, { kind: 'ok' }>

export type FileInfo = {
  path: string
  source: Source
  sizeBytes: number
  mtime: string
  sha256: string
  chunks: number
  lines: number
}

export type FileServiceDeps = {
  /** The workspace folder, named through its held descriptor (held-root.ts). */
  root: string
  /** Real path of the sessions folder, or null when none is configured. */
  sessionsReal: string | null
  memoryPaths: Pick<MemoryPaths, 'classify'>
  store: Pick<SpaceStore, 'listFiles'>
  maxFileBytes: number
}

/**
 * Validates a request path against syntax and the source policy; says which folder it is
 * in (the workspace, or the sessions folder) and its path there.
 */
export function checkSourcePath(
  raw: string,
  memoryPaths: Pick<MemoryPaths, 'classify'>,
  roots: { workspace: string; sessions: string | null },
): { kind: 'ok'; rel: string; root: string; inner: string } | { kind: 'invalid'; reason: string } {
  const check = checkRelPath(raw)
  if (check.kind === 'invalid') return check
  const kind = memoryPaths.classify(check.rel)
  if (kind.kind === 'sessions' && roots.sessions) {
    return { kind: 'ok', rel: check.rel, root: roots.sessions, inner: kind.inner }
  }
  if (kind.kind === 'memory') return { kind: 'ok', rel: check.rel, root: roots.workspace, inner: check.rel }
  return {
    kind: 'invalid',
    reason: 'not a memory file (MEMORY.md, memory/**/*.md, a configured extra path or sessions/*.jsonl)',
  }
}

export function createFileService(deps: FileServiceDeps) {
  /** The bytes of a source file, checked as read() checks it. */
  async function load(rawPath: string): Promise<BytesResult> {
    const check = checkSourcePath(rawPath, deps.memoryPaths, { workspace: deps.root, sessions: deps.sessionsReal })
    if (check.kind === 'invalid') return check
    // A symlinked file inside the folder is served from its target; the target is then
    // opened from the folder's root without following any symlink (workspace-fs.ts).
    const resolved = await resolveInside(check.root, check.inner)
    if (resolved.kind !== 'ok') return resolved
    const real = path.relative(check.root, resolved.abs).split(path.sep).join('/')
    const file = await readWorkspaceFile(check.root, real, deps.maxFileBytes)
    return file.kind === 'ok' ? { ...file, path: check.rel } : file
  }

  /** A window of `lines` lines starting at 1-based line `from` (default: to the end). */
  async function read(
    rawPath: string,
    opts: { from?: number | undefined; lines?: number | undefined },
  ): Promise<ReadResult> {
    const file = await load(rawPath)
    if (file.kind !== 'ok') return file
    const all = splitLines(decodeText(file.bytes))
    const from = opts.from ?? 1
    const to = Math.min(all.length, opts.lines === undefined ? all.length : from + opts.lines - 1)
    return {
      kind: 'ok',
      path: file.path,
      from,
      to: Math.max(to, from - 1),
      totalLines: all.length,
      text: all.slice(from - 1, Math.max(to, from - 1)).join('\n'),
      sha256: sha256(file.bytes),
    }
  }

  async function list(): Promise<FileInfo[]> {
    return (await deps.store.listFiles()).map((f) => ({
      path: f.path,
      source: f.source,
      sizeBytes: f.sizeBytes,
      mtime: new Date(f.mtimeMs).toISOString(),
      sha256: f.sha256,
      chunks: f.chunkCount,
      lines: f.lineCount,
    }))
  }

  return { read, readBytes: load, list }
}

export type FileService = ReturnType<typeof createFileService>
