/**
 * The entries of the agent registry (agent-registry.ts), one per space open, opening or
 * closing: how a space is built and started, leased by requests, refused when its folder
 * is replaced, and closed, at most OPENS_AT_ONCE built and CLOSES_AT_ONCE closed at a time,
 * each holding one of the `maxOpen` places (open-places.ts) until its close is done.
 */
import fs from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { yieldToEventLoop } from '../shared/async.js'
import { appError, isAppError } from '../shared/errors.js'
import { createLimiter } from '../shared/limiter.js'
import type { Logger } from '../shared/logger.js'
import type { FoundFolder } from './agent-folders.js'
import type { FolderIdentity } from '../files/held-root.js'
import type { AgentSpace } from './agent-space.js'
import { spaceSummary, type AgentSummary } from './agent-summary.js'
import { createOpenPlaces } from './open-places.js'

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

export type Entry = {
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

export type AgentEntriesDeps = {
  maxOpen: number
  /**
   * Builds the space of an agent over its folder (not started), checking it is the folder
   * `identity` names; `onFolderReplaced` is called when it is found replaced later.
   */
  open: (id: string, folder: FoundFolder, onFolderReplaced: () => void) => Promise<AgentSpace>
  /** Remembers the folder an open space was built over (SpaceFolders.pin). */
  pin: (id: string, identity: FolderIdentity) => void
  log: Logger
  now: () => number
}

export function createAgentEntries(deps: AgentEntriesDeps) {
  const { now, log } = deps
  const entries = new Map<string, Entry>()
  /** What closed agents held when they closed, for GET /agents. */
  const summaries = new Map<string, AgentSummary>()
  const opening = createLimiter(OPENS_AT_ONCE)
  const closing = createLimiter(CLOSES_AT_ONCE)
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
      deps.pin(id, folder.identity)
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
    entries,
    summaries,
    places,
    /** Whether the registry is closed: no space opens any more. */
    isClosed: (): boolean => closed,
    /** Stops opening spaces and wakes requests waiting for a place (they get 503 SHUTTING_DOWN). */
    shutDown(): void {
      closed = true
      notify()
    },
    openEntry,
    lease,
    release,
    close,
  }
}

export type AgentEntries = ReturnType<typeof createAgentEntries>
