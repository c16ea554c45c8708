/**
 * Which workspace paths are memory sources (SPEC §1): `MEMORY.md`, markdown under `memory/`,
 * and the configured extra paths (a file named there is indexed whatever its extension; a
 * folder contributes its markdown). Hidden files and folders (a segment starting with `.`)
 * are never sources. The scanner and the file API both ask this one policy.
 */
export const MEMORY_FILE = 'MEMORY.md'
export const MEMORY_DIR = 'memory'

const isMarkdown = (rel: string) => rel.toLowerCase().endsWith('.md')
const hasHiddenSegment = (rel: string) => rel.split('/').some((s) => s.startsWith('.'))

export function createMemoryPaths(extraPaths: readonly string[]) {
  const folders = [MEMORY_DIR, ...extraPaths]

  /** Whether a regular file at `rel` would be a memory source (folders fail later, at stat). */
  function isSource(rel: string): boolean {
    if (rel === MEMORY_FILE || extraPaths.includes(rel)) return true
    if (hasHiddenSegment(rel) || !isMarkdown(rel)) return false
    return folders.some((dir) => rel.startsWith(`${dir}/`))
  }

  return {
    isSource,
    /** Workspace-relative entries the scanner starts from (files or folders). */
    scanRoots: (): string[] => [MEMORY_FILE, ...folders],
  }
}

export type MemoryPaths = ReturnType<typeof createMemoryPaths>
