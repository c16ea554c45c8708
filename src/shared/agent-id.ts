/**
 * How memory spaces are named (SPEC §8). Agent ids: lower-case letters, digits, `_` and
 * `-`, starting with a letter or digit, at most 63 characters. The rule keeps an id safe
 * as a folder and file name (no `.`, `/` or `..` can form), so `<agentsDir>/<id>` never
 * leaves the agents folder. Team memory is shown under the reserved path prefix `team/`.
 */
export const AGENT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/

/** The default agent: MNEMO_WORKSPACE, for requests that name no agent. */
export const MAIN_AGENT = 'main'

/** The header that names the agent a request acts for. */
export const AGENT_HEADER = 'x-mnemo-agent'

export const isAgentId = (value: string): boolean => AGENT_ID_PATTERN.test(value)

/** Where a result comes from: the agent's own memory or the team's. */
export type Space = 'agent' | 'team'

/** Team paths as clients see them: `team/memory/2026-03-01.md`. */
export const TEAM_PREFIX = 'team/'
