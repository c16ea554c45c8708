/** GET /searches and POST /feedback (SPEC §12): the search log. */
import { z } from 'zod'
import { AGENT_ID_PATTERN } from '../../shared/agent-id.js'
import { QueryFlag } from './common.schema.js'

export const MAX_LISTED_SEARCHES = 1000

export const SearchesQuery = z.strictObject({
  agent: z
    .string()
    .regex(AGENT_ID_PATTERN)
    .optional()
    .describe("Only this agent's searches (the admin without X-Mnemo-Agent; anyone else reads its own agent only)"),
  user: z
    .string()
    .regex(AGENT_ID_PATTERN)
    .optional()
    .describe("Only this user's searches (the admin; anyone else reads the searches of the user it acts for)"),
  since: z.iso.datetime({ offset: true }).optional().describe('Only searches made at or after this time (ISO 8601)'),
  noResults: QueryFlag.optional().describe('true: only searches that returned nothing'),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_LISTED_SEARCHES)
    .default(100)
    .describe(`Most searches listed, newest first (default 100, at most ${MAX_LISTED_SEARCHES})`),
})

const LoggedSearch = z
  .object({
    requestId: z.string().describe('The request that made it (x-request-id; POST /feedback names it)'),
    time: z.string().describe('When it was answered (ISO 8601)'),
    agent: z.string(),
    user: z.string().nullable().describe('The user it acted for; null: none'),
    query: z.string(),
    mode: z.string().describe('The mode that ran'),
    results: z.number().int().describe('Results returned'),
    bestScore: z
      .number()
      .nullable()
      .describe("The best result's score, or the best score minScore cut when it abstained; null: nothing matched"),
    abstained: z.boolean().describe('Nothing was returned although chunks matched: all below minScore'),
    latencyMs: z.number().describe('Time the search took in the service, in ms'),
    degraded: z.array(z.string()).describe('Stages that fell back (vector, rerank, expand)'),
    feedback: z
      .object({ useful: z.boolean(), note: z.string().nullable(), time: z.string() })
      .nullable()
      .describe('What the agent said of its results (POST /feedback); null: nothing'),
  })
  .meta({ id: 'LoggedSearch' })

export const SearchList = z.object({ searches: z.array(LoggedSearch) }).meta({ id: 'SearchList' })

export const FeedbackRequest = z
  .strictObject({
    requestId: z.string().min(1).max(200).describe('The x-request-id of the search (also in its answer: requestId)'),
    useful: z.boolean().describe('Whether the results helped'),
    note: z.string().max(2000).optional().describe('What was missing or wrong, for people'),
  })
  .meta({ id: 'FeedbackRequest', example: { requestId: '8f0c…', useful: false, note: 'the deploy day was not found' } })

export const FeedbackResult = z.object({ requestId: z.string(), useful: z.boolean() }).meta({ id: 'FeedbackResult' })
