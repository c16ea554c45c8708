/** GET /agents (SPEC §8). */
import { z } from 'zod'

const AgentLastSync = z
  .object({
    at: z.string().describe('When it finished (ISO 8601)'),
    ok: z.boolean(),
    full: z.boolean().describe('A full rebuild'),
    reason: z.string(),
    durationMs: z.number(),
    error: z.string().optional(),
  })
  .nullable()
  .describe('The last sync since the service started (null: none yet)')

const IndexSummary = {
  files: z.number().int().describe('Files in the index'),
  chunks: z.number().int().describe('Chunks in the index'),
  lastSync: AgentLastSync,
}

export const AgentInfo = z
  .object({
    id: z.string().describe('Agent id (X-Mnemo-Agent)'),
    open: z.boolean().describe('Its index is open and watched now; closed agents open on their next request'),
    ...IndexSummary,
  })
  .meta({ id: 'AgentInfo' })

export const AgentList = z
  .object({
    agents: z.array(AgentInfo).describe('main, then every agent folder in MNEMO_AGENTS_DIR, by id'),
    team: z.object(IndexSummary).nullable().describe('The team index (null without MNEMO_TEAM_DIR)'),
  })
  .meta({ id: 'AgentList' })
