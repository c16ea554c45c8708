/**
 * The agents (SPEC §8): `main` (MNEMO_WORKSPACE, always open) and one folder per further
 * agent under MNEMO_AGENTS_DIR (agent-folders.ts), each with its own index. An agent's
 * space is opened on its first request and kept in a least-recently-used set of at most
 * `maxOpen`, a strict bound (descriptors and watches are per open space): a request for an
 * agent that is not open waits until there is room, closing the least recently used agent
 * that is idle (no request in progress, no sync running) — after PREEMPT_AFTER_MS also one
 * whose sync runs, which then resumes when it is opened again.
 *
 * Opening is bounded work per turn of the event loop: at most OPENS_AT_ONCE spaces are
 * built at a time (agent-entries.ts), with yields around the synchronous step (opening the index). A request
 * holds a lease on its space for its whole duration, so a space is never closed under a
 * request. An unknown agent is 404 AGENT_NOT_FOUND for reads, unless it has a token (then it
 * reads as empty: empty-space.ts); a write creates its folder. A space whose folder was
 * replaced after it opened is closed (once its requests are done) and refused meanwhile.
 * Opening an index that knows no file yet waits for its first sync, so the first search does
 * not answer "I don't remember" about notes that are on disk; reopening one answers from it
 * at once while a catch-up sync runs.
 */
import { folderReplaced, type FolderIdentity } from '../files/held-root.js'
import { isSpaceId, MAIN_AGENT, splitSpaceId } from '../shared/agent-id.js'
import { yieldToEventLoop } from '../shared/async.js'
import { appError } from '../shared/errors.js'
import type { Logger } from '../shared/logger.js'
import { AGENT_FOLDER, type FolderLookup, type FoundFolder } from './agent-folders.js'
import type { MaybePromise } from '../shared/async.js'
import { createAgentEntries, type AgentEntriesDeps, type Entry, type UseOptions } from './agent-entries.js'
import type { AgentSpace } from './agent-space.js'
import { spaceSummary, type AgentSummary } from './agent-summary.js'
import type { SpaceView } from './empty-space.js'

export type { UseOptions } from './agent-entries.js'

/** Whether a request may create the agent (writes) or needs it to exist (reads). */
export type AgentAccess = 'read' | 'write'

/**
 * The folders of the registry's spaces: an agent's by its id, a user's by `<agent>/<user>`
 * (user-folders.ts); `ids` lists the agents only.
 */
export type SpaceFolders = {
  find(id: string): Promise<FolderLookup>
  create(id: string, check: () => void): Promise<FoundFolder>
  ids(): Promise<string[]>
  pin(id: string, identity: FolderIdentity): void
}

export type AgentRegistryDeps = {
  main: AgentSpace
  folders: SpaceFolders
  /** Agents with a token: without a folder they read as empty (`empty`), not as unknown. */
  known: ReadonlySet<string>
  empty: (id: string) => SpaceView
  maxOpen: number
  /** Builds the space of an agent over its folder (agent-entries.ts). */
  open: AgentEntriesDeps['open']
  /** Reads what a closed agent's index holds, without opening it for writing. */
  peek: (id: string) => MaybePromise<AgentSummary>
  log: Logger
  now?: () => number
}

export function createAgentRegistry(deps: AgentRegistryDeps) {
  const live = createAgentEntries({
    maxOpen: deps.maxOpen,
    open: deps.open,
    pin: (id, identity) => deps.folders.pin(id, identity),
    log: deps.log,
    now: deps.now ?? Date.now,
  })
  const { entries, summaries, places, lease, close } = live
  /** Spaces being removed (a user deleted): no request opens them until that is done. */
  const removing = new Map<string, Promise<void>>()

  const notFound = (id: string) =>
    appError('AGENT_NOT_FOUND', `No agent "${id}": it has no memory yet (its first write creates it)`, {
      details: { agent: id },
    })

  /** The open entry of the agent with a lease taken, or 'empty' for a known agent without a folder. */
  async function acquire(
    id: string,
    access: AgentAccess,
    check: () => void,
    opts: UseOptions,
  ): Promise<Entry | 'empty'> {
    for (;;) {
      if (live.isClosed()) throw appError('SHUTTING_DOWN')
      const removal = removing.get(id)
      if (removal) {
        await removal
        continue
      }
      const known = entries.get(id)
      if (known?.revoked) throw folderReplaced(AGENT_FOLDER)
      if (known?.closing) {
        await known.closing
        continue
      }
      if (known) return lease(known, opts)
      const lookup = await deps.folders.find(id)
      let found: FoundFolder
      const creating = lookup.kind === 'missing' && access === 'write'
      if (lookup.kind === 'found') found = lookup
      else if (creating) found = await deps.folders.create(id, check)
      // A user without a folder has no memory yet: any user of an agent reads as empty.
      else if (deps.known.has(id) || splitSpaceId(id)) return 'empty'
      else throw notFound(id)
      // The registry may have closed, or another request opened the agent, meanwhile.
      if (live.isClosed()) throw appError('SHUTTING_DOWN')
      if (entries.has(id)) continue
      return lease(live.openEntry(id, found, creating), opts)
    }
  }

  return {
    /**
     * Runs `fn` with the agent's space open and leased (or its empty space: a known agent
     * without a folder, read access). Throws 404 AGENT_NOT_FOUND for an unknown agent
     * (reads), or when no MNEMO_AGENTS_DIR is set; 409 PATH_CHANGED when its folder was
     * replaced. A write that creates the agent runs `check` first (it throws what the write
     * would be refused with), so a refused write creates nothing. 503 OVERLOADED when
     * `opts.placeWaitMs` passes without a place for it.
     */
    async use<T>(
      id: string,
      access: AgentAccess,
      fn: (space: SpaceView) => Promise<T>,
      check: () => void = () => undefined,
      opts: UseOptions = {},
    ): Promise<T> {
      if (!isSpaceId(id)) throw appError('AGENT_INVALID')
      if (id === MAIN_AGENT) {
        await deps.main.checkFolder()
        return fn(deps.main)
      }
      const entry = await acquire(id, access, check, opts)
      if (entry === 'empty') return fn(deps.empty(id))
      let succeeded = false
      try {
        const space = entry.space as AgentSpace
        await space.checkFolder()
        const result = await fn(space)
        succeeded = true
        entry.created = null
        return result
      } finally {
        live.release(entry)
        // The write that made the agent was refused, and no other request holds it: the
        // agent goes with its (empty) folder.
        if (!succeeded && entry.created && entry.leases === 0 && !entry.closing) void close(entry)
      }
    },
    /** Every agent (main, open ones, folders in MNEMO_AGENTS_DIR, those with a token) with what its index holds. */
    async list(): Promise<(AgentSummary & { id: string; open: boolean })[]> {
      const agents = [...entries.keys()].filter((id) => splitSpaceId(id) === null)
      const ids = new Set([MAIN_AGENT, ...agents, ...deps.known, ...(await deps.folders.ids())])
      const out = []
      for (const id of [...ids].sort()) {
        const space = id === MAIN_AGENT ? deps.main : entries.get(id)?.closing ? null : entries.get(id)?.space
        if (space) out.push({ id, open: true, ...(await spaceSummary(space)) })
        else out.push({ id, open: false, ...(summaries.get(id) ?? (await deps.peek(id))) })
        // Reading closed agents' indexes is synchronous work: let requests in between.
        await yieldToEventLoop()
      }
      return out
    },
    /**
     * What a space (a user's) held, read from it when open or from its index when closed:
     * `peek` reads a closed one without opening it.
     */
    async summary(id: string): Promise<AgentSummary & { open: boolean }> {
      const space = entries.get(id)?.closing ? null : entries.get(id)?.space
      if (space) return { open: true, ...(await spaceSummary(space)) }
      return { open: false, ...(summaries.get(id) ?? (await deps.peek(id))) }
    },
    /**
     * Closes the space `id` once no request holds it and runs `fn` (which deletes what it
     * held) while no request can open it: those that come meanwhile wait, then find it gone.
     */
    async remove<T>(id: string, fn: () => Promise<T>): Promise<T> {
      for (let wait = removing.get(id); wait; wait = removing.get(id)) await wait
      const done = Promise.withResolvers<void>()
      removing.set(id, done.promise)
      try {
        for (let entry = entries.get(id); entry; entry = entries.get(id)) {
          if (entry.closing) await entry.closing
          else if (!entry.space) await entry.ready.catch(() => undefined)
          else if (entry.leases > 0) await places.changed()
          else await close(entry)
        }
        summaries.delete(id)
        return await fn()
      } finally {
        removing.delete(id)
        done.resolve()
      }
    },
    /** Agents open (or opening) now, main excluded: never more than `maxOpen`. */
    openCount: (): number => places.count(),
    /** The spaces of agents open now (not closing). */
    openSpaces: (): AgentSpace[] => [...entries.values()].flatMap((e) => (e.space && !e.closing ? [e.space] : [])),
    /** Closes every agent but main (which the container closes). */
    async close(): Promise<void> {
      live.shutDown()
      await Promise.all(
        [...entries.values()].map(
          (e) => e.closing ?? e.ready.catch(() => undefined).then(() => (e.space ? close(e) : undefined)),
        ),
      )
    },
  }
}

export type AgentRegistry = ReturnType<typeof createAgentRegistry>
