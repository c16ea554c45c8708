/**
 * How memory spaces are named (SPEC §8). Agent ids: lower-case letters, digits, `_` and
 * `-`, starting with a letter or digit, at most 63 characters. The rule keeps an id safe
 * as a folder and file name (no `.`, `/` or `..` can form), so `<agentsDir>/<id>` never
 * leaves the agents folder. Team memory is shown under the reserved path prefix `team/`,
 * another agent's memory read under a grant under `agents/<id>/`.
 */
export const AGENT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/

/** The default agent: MNEMO_WORKSPACE, for requests that name no agent. */
export const MAIN_AGENT = 'main'

/** The header that names the agent a request acts for. */
export const AGENT_HEADER = 'x-mnemo-agent'

export const isAgentId = (value: string): boolean => AGENT_ID_PATTERN.test(value)

/**
 * Where a result comes from: the agent's own (shared) memory, the private memory of the
 * user the request acts for, the team's, or `agent:<id>`: another agent's, read under a
 * grant (MNEMO_AGENT_GRANTS).
 */
export type Space = 'agent' | 'user' | 'team' | `agent:${string}`

/** The header that names the user (inside the agent) a request acts for (SPEC §11). */
export const USER_HEADER = 'x-mnemo-user'

/** User ids follow the agent id rule, so `users/<id>` is one plain folder name. */
export const isUserId = isAgentId

/** Who a request acts for: an agent and, inside it, a user (null: the agent's shared memory only). */
export type Actor = { agent: string; user: string | null }

/** The folder (and path prefix) holding the agents' users: `users/alice/memory/2026-11-28.md`. */
export const USERS_DIR = 'users'

/** Where user `user`'s files are shown: `users/alice/`. */
export const userPrefix = (user: string): string => `${USERS_DIR}/${user}/`

/**
 * The registry's name of a user's space, `<agent>/<user>` (no agent or user id holds a
 * `/`, so it names no agent).
 */
export const userSpaceId = (agent: string, user: string): string => `${agent}/${user}`

/** The agent and user a registry name holds, or null for an agent's own name. */
export function splitSpaceId(id: string): { agent: string; user: string } | null {
  const slash = id.indexOf('/')
  if (slash < 0) return null
  return { agent: id.slice(0, slash), user: id.slice(slash + 1) }
}

/** Whether `id` names an agent or one of its users (`agent/user`). */
export function isSpaceId(id: string): boolean {
  const split = splitSpaceId(id)
  return split === null ? isAgentId(id) : isAgentId(split.agent) && isUserId(split.user)
}

/** Team paths as clients see them: `team/memory/2026-03-01.md`. */
export const TEAM_PREFIX = 'team/'

/** The path prefix reserved for granted memories (for main, when it reads under a grant). */
export const GRANTS_PREFIX = 'agents/'

/** The space of agent `owner`'s memory, for a reader with a grant: `agent:coder`. */
export const grantedSpace = (owner: string): `agent:${string}` => `agent:${owner}`

/** The owner a granted space names (`agent:coder` → `coder`), or null for `agent` and `team`. */
export const grantOwner = (space: Space): string | null => (space.startsWith('agent:') ? space.slice(6) : null)

/** Where a reader sees agent `owner`'s files: `agents/coder/memory/2026-03-01.md`. */
export const grantedPrefix = (owner: string): string => `${GRANTS_PREFIX}${owner}/`

/**
 * Spaces one search can cover (the agent's, the team's and up to 14 granted ones): chunk
 * ids are spread so that each space has its own residue (search/search-spaces.ts). Ids stay
 * exact: SQLite rowids times 16 are far below 2^53 for any index that fits on a disk.
 */
export const MAX_SPACES = 16
