/**
 * Agent ids (SPEC §8): lower-case letters, digits, `_` and `-`, starting with a letter or
 * digit, at most 63 characters. The rule keeps an id safe as a folder and file name (no
 * `.`, `/` or `..` can form), so `<agentsDir>/<id>` never leaves the agents folder.
 */
export const AGENT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/

/** The default agent: MNEMO_WORKSPACE, for requests that name no agent. */
export const MAIN_AGENT = 'main'

/** The header that names the agent a request acts for. */
export const AGENT_HEADER = 'x-mnemo-agent'

export const isAgentId = (value: string): boolean => AGENT_ID_PATTERN.test(value)
