/** What GET /agents says of one agent's index: files, chunks and the last sync's outcome. */
import type { AgentSpace } from './agent-space.js'

export type AgentSummary = {
  files: number
  chunks: number
  /** The last sync of this process (null: none since the service started, or never opened). */
  lastSync: { at: string; ok: boolean; full: boolean; reason: string; durationMs: number; error?: string } | null
}

export function spaceSummary(space: Pick<AgentSpace, 'indexing'>): AgentSummary {
  const status = space.indexing.status()
  const last = status.lastSync
  return {
    files: status.files,
    chunks: status.chunks,
    lastSync: last && {
      at: last.at,
      ok: last.ok,
      full: last.full,
      reason: last.reason,
      durationMs: last.durationMs,
      ...(last.error === undefined ? {} : { error: last.error }),
    },
  }
}
