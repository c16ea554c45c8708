/**
 * The memory spaces one search covers (pure): the agent's own index and, when configured,
 * the team index, whose paths carry the reserved prefix `team/`, and the indexes of agents
 * it has a read grant for, under `agents/<owner>/`. Each space is filtered
 * with the part of the request's pathPrefix that applies to its own paths, and its chunk
 * ids are made unique across spaces before the merged list is ranked.
 */
import { MAX_SPACES } from '../shared/agent-id.js'

/**
 * The pathPrefix filter for a space whose paths are shown under `spacePrefix`: undefined to
 * keep every path, or null when no path of the space can match the request's prefix.
 */
export function spacePathPrefix(
  requested: string | undefined,
  spacePrefix: string,
): { pathPrefix: string | undefined } | null {
  if (requested === undefined || spacePrefix === '') return { pathPrefix: requested }
  if (requested.startsWith(spacePrefix)) return { pathPrefix: requested.slice(spacePrefix.length) || undefined }
  return spacePrefix.startsWith(requested) ? { pathPrefix: undefined } : null
}

/**
 * A chunk id unique across the spaces of one search (keeps the order of ids within a space):
 * each space has its own residue modulo MAX_SPACES.
 */
export const globalChunkId = (id: number, spaceIndex: number): number => id * MAX_SPACES + spaceIndex
