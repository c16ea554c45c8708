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
    users: z
      .number()
      .int()
      .describe(
        'Users with memory in the agent (folders under users/; GET /users lists them), counted without opening it',
      ),
    ...IndexSummary,
  })
  .meta({ id: 'AgentInfo' })

export const AgentList = z
  .object({
    agents: z.array(AgentInfo).describe('main, then every agent folder in MNEMO_AGENTS_DIR, by id'),
    team: z.object(IndexSummary).nullable().describe('The team index (null without MNEMO_TEAM_DIR)'),
  })
  .meta({ id: 'AgentList' })

/** GET /users (SPEC §11). */
export const UserList = z
  .object({
    agent: z.string().describe('The agent (X-Mnemo-Agent)'),
    users: z
      .array(
        z.object({
          id: z.string().describe('User id (X-Mnemo-User); its files are under users/<id>/'),
          open: z.boolean().describe('Its index is open and watched now; closed users open on their next request'),
          ...IndexSummary,
        }),
      )
      .describe('Every user of the agent with memory (a folder under users/), by id'),
  })
  .meta({ id: 'UserList' })

export const UserParams = z.object({
  id: z.string().describe('User id: a-z, 0-9, "_" and "-", starting with a letter or digit, at most 63'),
})

/** DELETE /users/:id (SPEC §11). */
export const UserDeleteResult = z
  .object({
    agent: z.string(),
    user: z.string(),
    files: z
      .array(z.string())
      .describe('The files removed, as the user named them (users/<id>/…); empty when the user had none'),
  })
  .meta({ id: 'UserDeleteResult' })
