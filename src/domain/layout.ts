/**
 * Names of a workspace's memory (SPEC §1), known to every layer: the files policy
 * (files/memory-paths.ts), search filters and every storage engine.
 */

/** Long-term memory at the workspace root; search scope "shared" leaves it out. */
export const MEMORY_FILE = 'MEMORY.md'
/** The folder of day files (`memory/YYYY-MM-DD.md`) and other notes. */
export const MEMORY_DIR = 'memory'
/** Paths of session transcripts start with this segment, whatever folder they live in. */
export const SESSIONS_PREFIX = 'sessions'

/** A day file flushes write to: `memory/YYYY-MM-DD.md`. */
export const isDayFilePath = (path: string): boolean => /^memory\/\d{4}-\d{2}-\d{2}\.md$/.test(path)
