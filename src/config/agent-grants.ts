/**
 * Read grants between agents (SPEC §8): MNEMO_AGENT_GRANTS lists `reader:owner` pairs,
 * comma-separated; agent `reader` may search and read `owner`'s memory, never write it.
 * Grants are one-way. Every problem names the entry by its number and its ids, so a typo in
 * an id fails start-up instead of granting nothing. `id:token` pairs meant for
 * MNEMO_AGENT_TOKENS look the same, so an id as long as a token (16+ characters) is not
 * repeated, nor an entry that is not a pair.
 */
import fs from 'node:fs'
import path from 'node:path'
import { isAgentId, MAIN_AGENT, MAX_SPACES } from '../shared/agent-id.js'
import { MIN_TOKEN_CHARS } from './agent-tokens.js'

/** Owners one reader may have: a search covers the reader's own index, the team's and theirs. */
export const MAX_GRANTS_PER_READER = MAX_SPACES - 2

export type GrantContext = {
  /** MNEMO_AGENTS_DIR (absolute), if set: agents other than main live there. */
  agentsDir: string | undefined
  /** Agents with a token. */
  tokens: ReadonlySet<string>
  /** MNEMO_MAX_OPEN_AGENTS: a reader's search holds its own space and its owners' open at once. */
  maxOpen: number
}

/** An id as a message may show it: not when it could be a token pasted here by mistake. */
const shown = (id: string): string =>
  id.length < MIN_TOKEN_CHARS ? `"${id}"` : `the ${id.length}-character id (not shown: it could be a token)`

/** Whether `id` names an agent: main, one with a token, or one whose folder exists. */
function knownAgent(id: string, ctx: GrantContext): boolean {
  if (id === MAIN_AGENT || ctx.tokens.has(id)) return true
  if (ctx.agentsDir === undefined) return false
  try {
    return fs.statSync(path.join(ctx.agentsDir, id)).isDirectory()
  } catch {
    return false
  }
}

/** Reader id → the owners whose memory it may read, in the order listed. Pushes one issue per bad entry. */
export function parseAgentGrants(
  raw: string | undefined,
  ctx: GrantContext,
  issues: string[],
): Map<string, readonly string[]> {
  const grants = new Map<string, string[]>()
  ;(raw ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .forEach((entry, i) => {
      if (entry === '') return
      const where = `MNEMO_AGENT_GRANTS: entry ${i + 1}`
      const parts = entry.split(':').map((p) => p.trim())
      const [reader, owner] = parts
      if (parts.length !== 2 || reader === undefined || owner === undefined) {
        issues.push(`${where}: is not of the form reader:owner`)
        return
      }
      const bad = [reader, owner].filter((id) => !isAgentId(id))
      if (bad.length > 0) {
        issues.push(`${where}: ${bad.map(shown).join(' and ')} is not an agent id (a-z 0-9 _ -, up to 63)`)
        return
      }
      const pair = `${where} (${shown(reader)}:${shown(owner)})`
      if (reader === owner) {
        issues.push(`${pair}: an agent reads its own memory without a grant`)
        return
      }
      const unknown = [reader, owner].filter((id) => !knownAgent(id, ctx))
      if (unknown.length > 0) {
        issues.push(
          `${pair}: no agent ${unknown.map(shown).join(' or ')} (not main, no token in ` +
            'MNEMO_AGENT_TOKENS, no folder in MNEMO_AGENTS_DIR)',
        )
        return
      }
      const owners = grants.get(reader) ?? []
      if (owners.includes(owner)) {
        issues.push(`${pair}: is listed twice`)
        return
      }
      grants.set(reader, [...owners, owner])
    })
  for (const [reader, owners] of grants) {
    if (owners.length > MAX_GRANTS_PER_READER) {
      issues.push(
        `MNEMO_AGENT_GRANTS: ${shown(reader)} reads ${owners.length} agents; at most ${MAX_GRANTS_PER_READER}`,
      )
    }
    const held = [reader, ...owners].filter((id) => id !== MAIN_AGENT).length
    if (held > ctx.maxOpen) {
      issues.push(
        `MNEMO_AGENT_GRANTS: a search by ${shown(reader)} holds ${held} agents open at once; ` +
          `MNEMO_MAX_OPEN_AGENTS is ${ctx.maxOpen}`,
      )
    }
  }
  return grants
}
