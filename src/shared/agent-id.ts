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
 * Where a result comes from: the agent's own memory, the team's, or `agent:<id>`: another
 * agent's, read under a grant (MNEMO_AGENT_GRANTS).
 */
export type Space = 'agent' | 'team' | `agent:${string}`

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
