/**
 * Token rules (SPEC §7, §8, §11) and agent tokens: `id:token` pairs from MNEMO_AGENT_TOKENS
 * (comma-separated) or MNEMO_AGENT_TOKENS_FILE (one per line, `#` comments); the id is an
 * agent's, or `agent/user` for a token bound to one user inside the agent. A token is
 * split from its id at the first `:`, so a token may itself contain `:`. Problems are
 * reported with the source and entry number they come from, never with a token, nor with
 * text that could be one (an entry without `:`, or whatever stands where the id should).
 */
import { isSpaceId, splitSpaceId } from '../shared/agent-id.js'

/** Shortest accepted token: shorter ones are guessable (16 characters of a random base64 ≈ 96 bits). */
export const MIN_TOKEN_CHARS = 16

/** What is wrong with a token (admin or agent), in words that do not repeat it; null when nothing. */
export function tokenProblem(token: string): string | null {
  if (token.length < MIN_TOKEN_CHARS) return `is shorter than ${MIN_TOKEN_CHARS} characters`
  if (/\s/.test(token)) return 'contains whitespace'
  return null
}

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
      if (colon < 0) {
        issues.push(`${where}: is not of the form id:token`)
        return
      }
      const id = entry.slice(0, colon).trim()
      const problem = tokenProblem(entry.slice(colon + 1).trim())
      if (!isSpaceId(id)) {
        issues.push(`${where}: what stands before ":" is not an agent id or agent/user (a-z 0-9 _ -, up to 63 each)`)
      } else if (problem) issues.push(`${where}: the token of "${id}" ${problem}`)
      else if (into.has(id)) issues.push(`${where}: "${id}" has a token already`)
      else into.set(id, entry.slice(colon + 1).trim())
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

/** The agent a token id names: `support` for `support` and for `support/alice`. */
export const tokenAgent = (id: string): string => splitSpaceId(id)?.agent ?? id
