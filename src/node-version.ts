/**
 * The oldest Node.js mnemo runs on, checked by the process entries before anything loads a
 * native module: on Node 20 better-sqlite3's binary dies with "Segmentation fault" and no
 * word about the version.
 */

/** Oldest supported major version (SPEC §7: a maintained LTS, 24 and 22). */
export const MIN_NODE_MAJOR = 22

/** One line saying why `version` (process.version, e.g. "v20.11.1") is too old; null when it is not. */
export function nodeVersionProblem(version: string): string | null {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1])
  if (!Number.isInteger(major) || major >= MIN_NODE_MAJOR) return null
  return `mnemo needs Node.js ${MIN_NODE_MAJOR} or newer; this is ${version.startsWith('v') ? version : `v${version}`}`
}
