/**
 * Settings of the `mnemo` client commands and `mnemo mcp`, which talk to a running mnemo
 * over REST: where it is, the token to send and the agent (and user) to act for. Parsed once at start;
 * a bad value stops it with a message naming the variable, like the service's own settings.
 * The token is read from MNEMO_API_TOKEN (the service's own variable, so one shell can run
 * both) or MNEMO_TOKEN, each or its `_FILE` variant; two of them holding different tokens is
 * an error rather than a guess.
 */
import { z } from 'zod'
import { AGENT_ID_PATTERN } from '../shared/agent-id.js'
import { invalidConfiguration } from '../shared/config-error.js'
import { variableOrFile } from './token-settings.js'

const unsetIfEmpty = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v)

export const clientEnvSchema = z.object({
  MNEMO_URL: z
    .preprocess(
      unsetIfEmpty,
      z
        .url({ protocol: /^https?$/ })
        .refine((u) => new URL(u).username === '' && new URL(u).password === '', {
          message: 'must not hold credentials: put the token in MNEMO_API_TOKEN',
        })
        .default('http://127.0.0.1:8787'),
    )
    .describe('Base URL of the running mnemo'),
  MNEMO_API_TOKEN: z
    .preprocess(unsetIfEmpty, z.string().optional())
    .describe('Bearer token to send: an agent token, or the admin token (with MNEMO_AGENT to pick the agent)'),
  MNEMO_API_TOKEN_FILE: z
    .preprocess(unsetIfEmpty, z.string().optional())
    .describe(
      'File holding the token (a Docker or Kubernetes secret; one trailing newline ignored); not with MNEMO_API_TOKEN',
    ),
  MNEMO_TOKEN: z
    .preprocess(unsetIfEmpty, z.string().optional())
    .describe('Older name of MNEMO_API_TOKEN for the client, still read'),
  MNEMO_TOKEN_FILE: z
    .preprocess(unsetIfEmpty, z.string().optional())
    .describe('Older name of MNEMO_API_TOKEN_FILE for the client, still read; not with MNEMO_TOKEN'),
  MNEMO_AGENT: z
    .preprocess(unsetIfEmpty, z.string().regex(AGENT_ID_PATTERN, 'must be an agent id').optional())
    .describe('Agent to act for (default: the token’s agent, or main)'),
  MNEMO_USER: z
    .preprocess(unsetIfEmpty, z.string().regex(AGENT_ID_PATTERN, 'must be a user id').optional())
    .describe('User inside the agent to act for (X-Mnemo-User; default: the token’s bound user, or none)'),
  MNEMO_TIMEOUT_MS: z
    .preprocess(unsetIfEmpty, z.coerce.number().int().min(100).max(600_000).default(30_000))
    .describe('Time limit of one call to mnemo, in ms'),
})

export type ClientConfig = {
  url: string
  token: string | undefined
  agent: string | undefined
  /** X-Mnemo-User: the user inside the agent to act for. */
  user?: string | undefined
  timeoutMs: number
}

/** `cwd`: where a relative MNEMO_TOKEN_FILE is looked for. */
export function loadClientConfig(env: Record<string, string | undefined>, cwd = '.'): ClientConfig {
  const parsed = clientEnvSchema.safeParse(env)
  if (!parsed.success) {
    throw invalidConfiguration(parsed.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`))
  }
  const e = parsed.data
  const issues: string[] = []
  const apiToken = variableOrFile('MNEMO_API_TOKEN', e.MNEMO_API_TOKEN, e.MNEMO_API_TOKEN_FILE, cwd, issues)
  const oldToken = variableOrFile('MNEMO_TOKEN', e.MNEMO_TOKEN, e.MNEMO_TOKEN_FILE, cwd, issues)
  if (apiToken !== undefined && oldToken !== undefined && apiToken !== oldToken) {
    issues.push('MNEMO_TOKEN: holds another token than MNEMO_API_TOKEN: set only MNEMO_API_TOKEN')
  }
  const token = apiToken ?? oldToken
  if (issues.length > 0) throw invalidConfiguration(issues)
  return {
    url: e.MNEMO_URL.replace(/\/+$/, ''),
    token,
    agent: e.MNEMO_AGENT,
    user: e.MNEMO_USER,
    timeoutMs: e.MNEMO_TIMEOUT_MS,
  }
}
