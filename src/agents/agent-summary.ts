/** What GET /agents says of one agent's index: files, chunks and the last sync's outcome. */
import { syncOutcome } from '../indexing/indexing-service.js'
import type { AgentSpace } from './agent-space.js'

export type AgentSummary = {
  files: number
  chunks: number
  /** The last sync of this process (null: none since the service started, or never opened). */
  lastSync: ReturnType<typeof syncOutcome> | null
}

export async function spaceSummary(space: Pick<AgentSpace, 'indexing'>): Promise<AgentSummary> {
  const { files, chunks } = await space.indexing.status()
  const last = space.indexing.lastSync()
  return { files, chunks, lastSync: last && syncOutcome(last) }
}
