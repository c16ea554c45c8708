/** Schemas shared by every route: the one error body (SPEC §2) and path validation. */
import { z } from 'zod'
import { AGENT_HEADER, AGENT_ID_PATTERN, USER_HEADER } from '../../shared/agent-id.js'
import { ERROR_CODES } from '../../shared/errors.js'
import { checkRelPath } from '../../shared/safe-path.js'

// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const NO_CONTROL = /^[^\u0000-\u001f\u007f]+$/

/** An agent or session name, printed in a flush heading: one line, no control characters. */
export const Label = z.string().min(1).max(128).regex(NO_CONTROL, 'must be one line without control characters')

export const ErrorBody = z
  .object({
    statusCode: z.number().int().describe('HTTP status code'),
    code: z.string().describe(`Stable error code: ${Object.keys(ERROR_CODES).join(', ')}`),
    error: z.string().describe('HTTP status text'),
    message: z.string().describe('What went wrong, for people'),
    requestId: z.string().describe('Request id, also sent as the x-request-id header and logged'),
    details: z.unknown().optional().describe('Structured details, e.g. validation issues'),
  })
  .meta({ id: 'ErrorBody' })

/** The `response` entries for the error statuses a route can return. */
export function errorResponses<const S extends readonly number[]>(...statuses: S): Record<S[number], typeof ErrorBody> {
  return Object.fromEntries(statuses.map((s) => [s, ErrorBody])) as Record<S[number], typeof ErrorBody>
}

/** A workspace-relative POSIX path prefix (a trailing `/` is allowed). */
export const PathPrefix = z
  .string()
  .min(1)
  .max(1024)
  .refine((v) => checkRelPath(v.endsWith('/') ? v.slice(0, -1) : v).kind === 'ok', {
    message:
      'must be a workspace-relative path without "..", "." or empty segments, backslashes or control characters, ' +
      'in well-formed Unicode',
  })

/** Boolean query-string flag: the words `true` and `false`. */
export const QueryFlag = z.enum(['true', 'false']).transform((v) => v === 'true')

/** The agent a request acts for (SPEC §8), on every route but /health. */
export const AgentHeaders = z.object({
  [AGENT_HEADER]: z
    .string()
    .regex(AGENT_ID_PATTERN)
    .optional()
    .describe(
      'The agent whose memory the request uses (default: the token\'s agent, or "main"). ' +
        'Invalid ids get 400 AGENT_INVALID; an agent token naming another agent gets 403 AGENT_FORBIDDEN',
    ),
  [USER_HEADER]: z
    .string()
    .regex(AGENT_ID_PATTERN)
    .optional()
    .describe(
      "The user inside the agent the request acts for (default: the token's bound user, or none): it reads the " +
        "agent's shared memory, the user's own (under users/<id>/) and the team's, and writes only its own. " +
        'Invalid ids get 400 USER_INVALID; a token bound to another user gets 403 USER_FORBIDDEN',
    ),
})
