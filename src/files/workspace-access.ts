/**
 * Whether this process may write the workspace: its folder and `memory/` (where day files
 * and the temp files of writes are created). A root-owned volume mounted for a service that
 * runs as uid 1000 would otherwise start "ready" and answer 403 to every write; start-up
 * warns and GET /ready shows it (checks.workspace).
 */
import fs from 'node:fs'
import path from 'node:path'
import { MEMORY_DIR } from '../domain/layout.js'

export type WorkspaceAccess = 'writable' | 'read-only'

/** `writable` when the workspace folder and its memory/ folder (if any) can be written. */
export async function workspaceAccess(root: string): Promise<WorkspaceAccess> {
  const mode = fs.constants.W_OK | fs.constants.X_OK
  try {
    await fs.promises.access(root, mode)
    await fs.promises.access(path.join(root, MEMORY_DIR), mode).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err
    })
    return 'writable'
  } catch {
    return 'read-only'
  }
}
