/**
 * Settings of `mnemo mcp`, the stdio MCP entry that talks to a running mnemo over REST:
 * where it is, the token to send and the agent to act for. Parsed once at start; a bad
 * value stops it with a message naming the variable, like the service's own settings.
 */
import { z } from 'zod'
import { AGENT_ID_PATTERN } from '../shared/agent-id.js'
import { ConfigError } from './load-config.js'
import { readSecretFile } from './token-settings.js'

const unsetIfEmpty = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v)

export const clientEnvSchema = z.object({
  MNEMO_URL: z
    .preprocess(
      unsetIfEmpty,
      z
        .url({ protocol: /^https?$/ })
        .refine((u) => new URL(u).username === '' && new URL(u).password === '', {
          message: 'must not hold credentials: put the token in MNEMO_TOKEN',
        })
        .default('http://127.0.0.1:8787'),
    )
    .describe('Base URL of the running mnemo'),
  MNEMO_TOKEN: z
    .preprocess(unsetIfEmpty, z.string().optional())
    .describe('Bearer token: the agent token (or the admin token with MNEMO_AGENT)'),
  MNEMO_TOKEN_FILE: z
    .preprocess(unsetIfEmpty, z.string().optional())
    .describe(
      'File holding the token (a Docker or Kubernetes secret; one trailing newline ignored); not with MNEMO_TOKEN',
    ),
  MNEMO_AGENT: z
    .preprocess(unsetIfEmpty, z.string().regex(AGENT_ID_PATTERN, 'must be an agent id').optional())
    .describe('Agent to act for (default: the token’s agent, or main)'),
  MNEMO_TIMEOUT_MS: z
    .preprocess(unsetIfEmpty, z.coerce.number().int().min(100).max(600_000).default(30_000))
    .describe('Time limit of one call to mnemo, in ms'),
})

export type ClientConfig = { url: string; token: string | undefined; agent: string | undefined; timeoutMs: number }

/** `cwd`: where a relative MNEMO_TOKEN_FILE is looked for. */
export function loadClientConfig(env: Record<string, string | undefined>, cwd = '.'): ClientConfig {
  const parsed = clientEnvSchema.safeParse(env)
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`))
  }
  const e = parsed.data
  const issues: string[] = []
  if (e.MNEMO_TOKEN !== undefined && e.MNEMO_TOKEN_FILE !== undefined) {
    issues.push('MNEMO_TOKEN: set either MNEMO_TOKEN or MNEMO_TOKEN_FILE, not both')
  }
  const token =
    e.MNEMO_TOKEN_FILE === undefined
      ? e.MNEMO_TOKEN
      : readSecretFile('MNEMO_TOKEN_FILE', e.MNEMO_TOKEN_FILE, cwd, issues)
  if (issues.length > 0) throw new ConfigError(issues)
  return {
    url: e.MNEMO_URL.replace(/\/+$/, ''),
    token,
    agent: e.MNEMO_AGENT,
    timeoutMs: e.MNEMO_TIMEOUT_MS,
  }
}
