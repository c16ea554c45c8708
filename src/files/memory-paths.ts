/**
 * Which paths are memory sources (SPEC §1): `MEMORY.md`, markdown under `memory/`, the
 * configured extra paths (a file named there is indexed whatever its extension; a folder
 * contributes its markdown) and, when a sessions folder is configured, its `*.jsonl`
 * transcripts under the virtual prefix `sessions/`. Hidden files and folders (a segment
 * starting with `.`) are never sources. The scanner, the watcher and the file API all ask
 * this one policy, including which sources the write API may change.
 */
import { MEMORY_DIR, MEMORY_FILE, SESSIONS_PREFIX } from '../domain/layout.js'

const isMarkdown = (rel: string) => rel.toLowerCase().endsWith('.md')
const hasHiddenSegment = (rel: string) => rel.split('/').some((s) => s.startsWith('.'))

/** What a workspace-relative path names. */
export type PathKind =
  | { kind: 'memory'; writable: boolean }
  /** A transcript: `inner` is its path inside the sessions folder. */
  | { kind: 'sessions'; inner: string }
  | { kind: 'none' }

export type MemoryPathsOptions = {
  extraPaths: readonly string[]
  /** Whether the write API may change markdown under the extra paths. */
  extraPathsWritable?: boolean
  /** Whether a sessions folder is configured. */
  sessions?: boolean
  /** No path is writable (team memory without MNEMO_TEAM_WRITABLE). */
  readOnly?: boolean
}

export function createMemoryPaths(opts: MemoryPathsOptions) {
  const { extraPaths } = opts
  const folders = [MEMORY_DIR, ...extraPaths]
  const under = (rel: string, dirs: readonly string[]) => dirs.some((dir) => rel.startsWith(`${dir}/`))

  /** Whether a regular file at `rel` would be a memory source (folders fail later, at stat). */
  function isSource(rel: string): boolean {
    if (rel === MEMORY_FILE || extraPaths.includes(rel)) return true
    if (hasHiddenSegment(rel) || !isMarkdown(rel)) return false
    return under(rel, folders)
  }

  function classify(rel: string): PathKind {
    const sessionsDir = `${SESSIONS_PREFIX}/`
    if (opts.sessions && rel.startsWith(sessionsDir)) {
      const inner = rel.slice(sessionsDir.length)
      const ok = inner.length > 0 && !hasHiddenSegment(inner) && inner.toLowerCase().endsWith('.jsonl')
      return ok ? { kind: 'sessions', inner } : { kind: 'none' }
    }
    if (!isSource(rel)) return { kind: 'none' }
    // Writes are markdown only: MEMORY.md, memory/**/*.md, and extra-path markdown if allowed.
    const writable =
      opts.readOnly !== true &&
      (rel === MEMORY_FILE ||
        (isMarkdown(rel) &&
          (under(rel, [MEMORY_DIR]) ||
            (opts.extraPathsWritable === true && (under(rel, extraPaths) || extraPaths.includes(rel))))))
    return { kind: 'memory', writable }
  }

  return {
    isSource,
    classify,
    /** Workspace-relative entries the scanner starts from (files or folders). */
    scanRoots: (): string[] => [MEMORY_FILE, ...folders],
  }
}

export type MemoryPaths = ReturnType<typeof createMemoryPaths>
