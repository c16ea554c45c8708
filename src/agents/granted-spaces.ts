/**
 * Other agents' memories a reader may search and read under MNEMO_AGENT_GRANTS (SPEC §8):
 * agent `coder`'s memory is space `agent:coder` to its readers, its files are shown under
 * `agents/coder/`, and it is never written through them. An owner with no memory yet (no
 * folder, no token) reads as empty, so a grant never tells whether its owner exists beyond
 * what the operator configured.
 */
import type { SearchedIndex } from '../search/search-plan.js'
import { appError, isAppError } from '../shared/errors.js'
import { grantedPrefix, grantedSpace } from '../shared/agent-id.js'
import type { AgentRegistry, UseOptions } from './agent-registry.js'
import type { SpaceView } from './empty-space.js'

/**
 * How long a request that holds the reader's space waits for a place for an owner's, in ms:
 * past PREEMPT_AFTER_MS (1 s) even busy agents without a request are closed, so a place
 * still missing after 2 s is held by requests, maybe ones waiting for the reader's place.
 */
export const OWNER_PLACE_WAIT_MS = 2000

/** The granted owner a path names (`agents/coder/memory/x.md` → coder, `memory/x.md`), or null. */
export function grantedPath(owners: readonly string[], raw: string): { owner: string; rel: string } | null {
  const owner = owners.find((o) => raw.startsWith(grantedPrefix(o)))
  return owner === undefined ? null : { owner, rel: raw.slice(grantedPrefix(owner).length) }
}

/** The refusal of every write by a reader to a granted memory. */
export const grantReadOnly = (reader: string, owner: string) =>
  appError(
    'PATH_READ_ONLY',
    `${grantedPrefix(owner)} is the memory of agent "${owner}": "${reader}" may search and read it, never write it ` +
      '(MNEMO_AGENT_GRANTS)',
    { details: { space: grantedSpace(owner) } },
  )

/** What a search of the owner's memory reads, labelled with its space and path prefix; null: nothing. */
function ownerTarget(owner: string, space: SpaceView): SearchedIndex | null {
  return (
    space.target && {
      ...space.target,
      space: grantedSpace(owner),
      pathPrefix: grantedPrefix(owner),
      // The owner's MEMORY.md is private to the owner: group-chat searches leave it out too.
      privateMemoryFile: true,
    }
  )
}

/**
 * Runs `fn` with the owner's space open and leased (read access: a grant never creates an
 * agent), or `absent()` when the owner has no memory yet.
 */
export async function onOwner<T>(
  registry: Pick<AgentRegistry, 'use'>,
  owner: string,
  fn: (space: SpaceView) => Promise<T>,
  absent: () => T | Promise<T>,
  opts: UseOptions = {},
): Promise<T> {
  let ran = false
  try {
    return await registry.use(
      owner,
      'read',
      (space) => {
        ran = true
        return fn(space)
      },
      undefined,
      opts,
    )
  } catch (err) {
    if (!ran && isAppError(err) && err.code === 'AGENT_NOT_FOUND') return absent()
    throw err
  }
}

/**
 * Runs `fn` with the search targets of every owner listed, each owner's space held open
 * until `fn` is done. Owners are opened one after the other, in the order of the grants,
 * each waiting at most OWNER_PLACE_WAIT_MS for a place (the caller holds the reader's).
 */
export async function withOwnerTargets<T>(
  registry: Pick<AgentRegistry, 'use'>,
  owners: readonly string[],
  fn: (targets: SearchedIndex[]) => Promise<T>,
  held: SearchedIndex[] = [],
): Promise<T> {
  const [owner, ...rest] = owners
  if (owner === undefined) return fn(held)
  const next = (target: SearchedIndex | null) => withOwnerTargets(registry, rest, fn, target ? [...held, target] : held)
  return onOwner(
    registry,
    owner,
    (space) => next(ownerTarget(owner, space)),
    () => next(null),
    { placeWaitMs: OWNER_PLACE_WAIT_MS },
  )
}
