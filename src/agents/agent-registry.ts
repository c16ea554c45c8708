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
 * built at a time, with yields around the synchronous step (opening the index). A request
 * holds a lease on its space for its whole duration, so a space is never closed under a
 * request. An unknown agent is 404 AGENT_NOT_FOUND for reads, unless it has a token (then it
 * reads as empty: empty-space.ts); a write creates its folder. A space whose folder was
 * replaced after it opened is closed (once its requests are done) and refused meanwhile.
 * Opening an index that knows no file yet waits for its first sync, so the first search does
 * not answer "I don't remember" about notes that are on disk; reopening one answers from it
 * at once while a catch-up sync runs.
 */
import fs from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { folderReplaced } from '../files/held-root.js'
import { isSpaceId, MAIN_AGENT, splitSpaceId } from '../shared/agent-id.js'
import { yieldToEventLoop } from '../shared/async.js'
import { appError, isAppError } from '../shared/errors.js'
import { createLimiter } from '../shared/limiter.js'
import type { Logger } from '../shared/logger.js'
import { AGENT_FOLDER, type FolderLookup, type FoundFolder } from './agent-folders.js'
import type { FolderIdentity } from '../files/held-root.js'
import type { MaybePromise } from '../store/port.js'
import type { AgentSpace } from './agent-space.js'
import { spaceSummary, type AgentSummary } from './agent-summary.js'
import type { SpaceView } from './empty-space.js'
import { createOpenPlaces } from './open-places.js'

/** Whether a request may create the agent (writes) or needs it to exist (reads). */
export type AgentAccess = 'read' | 'write'

/**
 * Spaces built (or closed) at once. Building one opens its index synchronously (5–25 ms),
 * closing one closes it (a WAL checkpoint); two at a time keep a burst of agents from
 * queueing many of those steps into one turn of the event loop.
 */
const OPENS_AT_ONCE = 2
const CLOSES_AT_ONCE = 2

/**
 * Options of one use of an agent's space. `placeWaitMs`: how long to wait for a place among
 * the `maxOpen` before giving up with 503 OVERLOADED (default: no limit). A request that
 * already holds another agent's space (a search of granted memories) sets it: two such
 * requests holding the last places could otherwise wait for each other forever.
 */
export type UseOptions = { placeWaitMs?: number }

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
  /**
   * Builds the space of an agent over its folder (not started), checking it is the folder
   * `identity` names; `onFolderReplaced` is called when it is found replaced later.
   */
  open: (id: string, folder: FoundFolder, onFolderReplaced: () => void) => Promise<AgentSpace>
  /** Reads what a closed agent's index holds, without opening it for writing. */
  peek: (id: string) => MaybePromise<AgentSummary>
  log: Logger
  now?: () => number
}

type Entry = {
  id: string
  /** Null until built. */
  space: AgentSpace | null
  leases: number
  lastUsedMs: number
  /** Holds one of the `maxOpen` places (from before it is built until its close is done). */
  placed: boolean
  /** Settles when the space is open and, for a new index, its first sync is done. */
  ready: Promise<void>
  closing: Promise<void> | null
  /** Its folder was replaced: refused, and closed once no request holds it. */
  revoked: boolean
  /**
   * Its folder was made for a write that has not succeeded yet: a refused write (the
   * database away) creates no agent, so the folder goes again if it is still empty.
   */
  created: { root: string } | null
}

export function createAgentRegistry(deps: AgentRegistryDeps) {
  const now = deps.now ?? Date.now
  const log = deps.log
  const entries = new Map<string, Entry>()
  /** What closed agents held when they closed, for GET /agents. */
  const summaries = new Map<string, AgentSummary>()
  const opening = createLimiter(OPENS_AT_ONCE)
  const closing = createLimiter(CLOSES_AT_ONCE)
  /** Spaces being removed (a user deleted): no request opens them until that is done. */
  const removing = new Map<string, Promise<void>>()
  let closed = false
  const places = createOpenPlaces<Entry>({
    maxOpen: deps.maxOpen,
    entries: () => entries.values(),
    close: (entry) => void close(entry),
    closed: () => closed,
    now,
    log,
  })
  const notify = places.notify

  const notFound = (id: string) =>
    appError('AGENT_NOT_FOUND', `No agent "${id}": it has no memory yet (its first write creates it)`, {
      details: { agent: id },
    })

  /**
   * Registers the agent's entry before any await, so concurrent requests share it, then
   * waits for a place, builds the space (at most OPENS_AT_ONCE at a time) and starts it. A
   * new index is ready once its first sync is done; an existing one at once.
   */
  function openEntry(id: string, folder: FoundFolder, created: boolean): Entry {
    const entry: Entry = {
      id,
      space: null,
      leases: 0,
      lastUsedMs: now(),
      placed: false,
      ready: Promise.resolve(),
      closing: null,
      revoked: false,
      created: created ? { root: folder.root } : null,
    }
    entries.set(id, entry)
    entry.ready = (async () => {
      await places.take(entry)
      const space = await opening.run(async () => {
        await yieldToEventLoop()
        if (closed) throw appError('SHUTTING_DOWN')
        const built = await deps.open(id, folder, () => revoke(entry))
        await yieldToEventLoop()
        return built
      })
      entry.space = space
      deps.folders.pin(id, folder.identity)
      const started = space.start({ urgent: space.fresh })
      if (!space.fresh) {
        started.catch((err: unknown) => log.error({ err, agent: id }, 'agent watcher or sync could not start'))
        return
      }
      // Failures of that sync are in the agent's status and the log; the request is answered.
      const { firstSync } = await started
      await firstSync?.catch(() => undefined)
    })()
    entry.ready.catch((err: unknown) => {
      // A refusal (its folder replaced, shutting down) is the request's answer, not a fault.
      if (isAppError(err)) log.warn({ err, agent: id }, 'agent could not be opened')
      else log.error({ err, agent: id }, 'agent could not be opened')
      void settleClose(
        entry,
        (entry.space?.close() ?? Promise.resolve()).then(() => uncreate(entry)),
      )
    })
    return entry
  }

  /**
   * Removes the folder a refused write made for its agent, if nothing was written in it (an
   * empty folder: rmdir refuses any other). Run once the agent's space is closed.
   */
  async function uncreate(entry: Entry): Promise<void> {
    const created = entry.created
    if (!created) return
    entry.created = null
    const removed = await fs.rmdir(created.root).then(
      () => true,
      () => false,
    )
    if (removed) log.info({ agent: entry.id }, 'removed the folder of an agent whose first write was refused')
  }

  /** Takes a lease on an entry and waits until it is ready (giving up after `placeWaitMs` without a place). */
  async function lease(entry: Entry, opts: UseOptions): Promise<Entry> {
    entry.leases++
    entry.lastUsedMs = now()
    try {
      if (opts.placeWaitMs !== undefined) {
        const late = await Promise.race([entry.ready.then(() => false), sleep(opts.placeWaitMs, true, { ref: false })])
        if (late && !entry.placed && !entry.space) {
          throw appError('OVERLOADED', `Every open agent is held by a request (MNEMO_MAX_OPEN_AGENTS): retry shortly`, {
            details: { agent: entry.id },
          })
        }
      }
      await entry.ready
    } catch (err) {
      entry.leases--
      notify()
      throw err
    }
    return entry
  }

  function release(entry: Entry): void {
    entry.leases--
    entry.lastUsedMs = now()
    if (entry.revoked && entry.leases === 0) void close(entry)
    notify()
  }

  /** The space's folder was replaced: refuse it and close it once no request holds it. */
  function revoke(entry: Entry): void {
    if (entry.revoked) return
    entry.revoked = true
    log.warn({ agent: entry.id }, 'agent folder replaced after it was opened: its space closes')
    if (entry.leases === 0 && entry.space) void close(entry)
  }

  /** The open entry of the agent with a lease taken, or 'empty' for a known agent without a folder. */
  async function acquire(
    id: string,
    access: AgentAccess,
    check: () => void,
    opts: UseOptions,
  ): Promise<Entry | 'empty'> {
    for (;;) {
      if (closed) throw appError('SHUTTING_DOWN')
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
      if (closed) throw appError('SHUTTING_DOWN')
      if (entries.has(id)) continue
      return lease(openEntry(id, found, creating), opts)
    }
  }

  /** Marks the entry closing until `closing` settles; then its place is free. */
  function settleClose(entry: Entry, closing: Promise<void>): Promise<void> {
    entry.closing = closing
      .catch((err: unknown) => log.error({ err, agent: entry.id }, 'closing agent failed'))
      .finally(() => {
        if (entries.get(entry.id) === entry) entries.delete(entry.id)
        entry.placed = false
        notify()
      })
    return entry.closing
  }

  function close(entry: Entry): Promise<void> {
    if (entry.closing) return entry.closing
    const space = entry.space as AgentSpace
    log.debug({ agent: entry.id }, 'closing agent')
    return settleClose(
      entry,
      closing.run(async () => {
        await yieldToEventLoop()
        // An agent whose only write was refused has no index worth a summary.
        if (!entry.created) summaries.set(entry.id, await spaceSummary(space))
        await space.close()
        await uncreate(entry)
      }),
    )
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
        release(entry)
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
      closed = true
      notify()
      await Promise.all(
        [...entries.values()].map(
          (e) => e.closing ?? e.ready.catch(() => undefined).then(() => (e.space ? close(e) : undefined)),
        ),
      )
    },
  }
}

export type AgentRegistry = ReturnType<typeof createAgentRegistry>
