/**
 * Agent tokens (SPEC §8): `id:token` pairs from MNEMO_AGENT_TOKENS (comma-separated) and
 * MNEMO_AGENT_TOKENS_FILE (one per line, `#` comments). A token is split from its id at
 * the first `:`, so a token may itself contain `:`. Problems are reported with the source
 * they come from, never with the token itself.
 */
import { isAgentId } from '../shared/agent-id.js'

/** Shortest accepted token: shorter ones are guessable (16 characters of a random base64 ≈ 96 bits). */
export const MIN_TOKEN_CHARS = 16

/** Adds `id:token` entries from `text` to `into`, pushing one issue per bad entry. */
export function parseAgentTokens(
  text: string,
  separator: RegExp,
  source: string,
  into: Map<string, string>,
  issues: string[],
): void {
  text
    .split(separator)
    .map((entry) => entry.trim())
    .forEach((entry, i) => {
      if (entry === '' || entry.startsWith('#')) return
      const where = `${source}: entry ${i + 1}`
      const colon = entry.indexOf(':')
      const id = colon < 0 ? entry : entry.slice(0, colon).trim()
      const token = colon < 0 ? '' : entry.slice(colon + 1).trim()
      if (!isAgentId(id)) issues.push(`${where}: "${id}" is not an agent id (a-z 0-9 _ -, up to 63)`)
      else if (token.length < MIN_TOKEN_CHARS)
        issues.push(`${where}: the token of "${id}" is shorter than ${MIN_TOKEN_CHARS} characters`)
      else if (/\s/.test(token)) issues.push(`${where}: the token of "${id}" contains whitespace`)
      else if (into.has(id)) issues.push(`${where}: "${id}" has a token already`)
      else into.set(id, token)
    })
}

/** Refuses a token shared by two agents, or by an agent and the admin. */
export function checkDistinctTokens(
  tokens: ReadonlyMap<string, string>,
  adminToken: string | undefined,
  issues: string[],
): void {
  const owner = new Map<string, string>()
  for (const [id, token] of tokens) {
    const other = owner.get(token)
    if (other !== undefined) issues.push(`MNEMO_AGENT_TOKENS: "${id}" and "${other}" have the same token`)
    owner.set(token, id)
    if (token === adminToken) issues.push(`MNEMO_AGENT_TOKENS: the token of "${id}" is MNEMO_API_TOKEN`)
  }
}
