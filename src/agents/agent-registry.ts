/**
 * The agents (SPEC §8): `main` (MNEMO_WORKSPACE, always open) and one folder per further
 * agent under MNEMO_AGENTS_DIR, each with its own index. An agent's space is opened on its
 * first request and kept in a least-recently-used set of at most `maxOpen`; past that, the
 * least recently used agent that is idle (no request in progress, no sync running) is
 * closed — watcher stopped, index closed — and opened again on its next request.
 *
 * A request holds a lease on the space for its whole duration (use()), so a space is never
 * closed under a request. An unknown agent is 404 AGENT_NOT_FOUND for reads; a write
 * creates its folder. Opening an index that knows no file yet (a new agent, or files put
 * in place by hand) waits for its first sync, so the first search does not answer "I don't
 * remember" about notes that are on disk; reopening an index answers from it at once while
 * a catch-up sync runs.
 */
import fs from 'node:fs/promises'
import path from 'node:path'
import { appError } from '../shared/errors.js'
import type { Logger } from '../shared/logger.js'
import { MEMORY_DIR } from '../files/memory-paths.js'
import type { AgentSpace } from './agent-space.js'
import { isAgentId, MAIN_AGENT } from '../shared/agent-id.js'
import { spaceSummary, type AgentSummary } from './agent-summary.js'

/** Whether a request may create the agent (writes) or needs it to exist (reads). */
export type AgentAccess = 'read' | 'write'

export type AgentRegistryDeps = {
  main: AgentSpace
  /** MNEMO_AGENTS_DIR as a real path, or null: only `main` exists. */
  dirReal: string | null
  maxOpen: number
  /** Builds the space of an agent whose folder is `root` (not started). */
  open: (id: string, root: string) => AgentSpace
  /** Reads what a closed agent's index holds, without opening it for writing. */
  peek: (id: string) => AgentSummary
  log: Logger
  now?: () => number
}

type Entry = {
  space: AgentSpace
  leases: number
  lastUsedMs: number
  /** Settles when the space is open and, for a new index, its first sync is done. */
  ready: Promise<void>
  closing: Promise<void> | null
}

export function createAgentRegistry(deps: AgentRegistryDeps) {
  const now = deps.now ?? Date.now
  const log = deps.log
  const entries = new Map<string, Entry>()
  /** What closed agents held when they closed, for GET /agents. */
  const summaries = new Map<string, AgentSummary>()
  let closed = false
  let warnedOverBound = false

  const notFound = (id: string, why: string) =>
    appError('AGENT_NOT_FOUND', `No agent "${id}": ${why}`, { details: { agent: id } })

  /** The agent's folder; created (with memory/) for a write. */
  async function locate(id: string, access: AgentAccess): Promise<string> {
    if (!deps.dirReal) throw notFound(id, 'MNEMO_AGENTS_DIR is not set, so only "main" exists')
    const root = path.join(deps.dirReal, id)
    const st = await fs.lstat(root).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err
      return null
    })
    if (st) {
      // A symlinked agent folder could lead anywhere, including another agent's folder.
      if (!st.isDirectory()) throw notFound(id, 'its entry in MNEMO_AGENTS_DIR is not a plain folder')
      return root
    }
    if (access === 'read') throw notFound(id, 'it has no memory yet (its first write creates it)')
    await fs.mkdir(path.join(root, MEMORY_DIR), { recursive: true })
    log.info({ agent: id }, 'created agent')
    return root
  }

  /**
   * Opens the agent's space and registers it before any await, so concurrent requests share
   * it. A new index is ready once its first sync is done; an existing one at once (its
   * watcher and catch-up sync start meanwhile).
   */
  function openEntry(id: string, root: string): Entry {
    const space = deps.open(id, root)
    const started = space.start({ urgent: space.fresh })
    const entry: Entry = { space, leases: 0, lastUsedMs: now(), ready: Promise.resolve(), closing: null }
    if (space.fresh) {
      // Failures of that sync are in the agent's status and the log; the request is answered.
      entry.ready = started.then(async ({ firstSync }) => void (await firstSync?.catch(() => undefined)))
      entry.ready.catch((err: unknown) => {
        log.error({ err, agent: id }, 'agent could not be opened')
        if (entries.get(id) === entry) entries.delete(id)
        void space.close().catch(() => undefined)
      })
    } else {
      started.catch((err: unknown) => log.error({ err, agent: id }, 'agent watcher or sync could not start'))
    }
    entries.set(id, entry)
    return entry
  }

  /**
   * An open entry with a lease taken. The lease is taken before waiting for the space to
   * be ready, synchronously after checking it is not closing, so no eviction can close it
   * under the request.
   */
  async function acquire(id: string, access: AgentAccess): Promise<Entry> {
    for (;;) {
      if (closed) throw appError('SHUTTING_DOWN')
      const known = entries.get(id)
      if (known?.closing) {
        await known.closing
        continue
      }
      let entry = known
      if (!entry) {
        const root = await locate(id, access)
        // The registry may have closed, or another request opened the agent or started
        // closing it, while this one looked at the folder.
        if (closed) throw appError('SHUTTING_DOWN')
        if (entries.get(id)?.closing) continue
        entry = entries.get(id) ?? openEntry(id, root)
      }
      entry.leases++
      evictIdle()
      try {
        await entry.ready
      } catch (err) {
        entry.leases--
        throw err
      }
      return entry
    }
  }

  /** Closes least recently used idle agents while more than `maxOpen` are open. */
  function evictIdle(): void {
    let open = [...entries.values()].filter((e) => !e.closing)
    while (open.length > deps.maxOpen) {
      const idle = open.filter((e) => e.leases === 0 && !e.space.isBusy()).sort((a, b) => a.lastUsedMs - b.lastUsedMs)
      const victim = idle[0]
      if (!victim) {
        if (!warnedOverBound) log.warn({ open: open.length, maxOpen: deps.maxOpen }, 'every open agent is busy')
        warnedOverBound = true
        return
      }
      void close(victim)
      open = open.filter((e) => e !== victim)
    }
    warnedOverBound = false
  }

  function close(entry: Entry): Promise<void> {
    const id = entry.space.name
    summaries.set(id, spaceSummary(entry.space))
    entry.closing = entry.space
      .close()
      .catch((err: unknown) => log.error({ err, agent: id }, 'closing agent failed'))
      .finally(() => {
        if (entries.get(id) === entry) entries.delete(id)
      })
    log.debug({ agent: id }, 'closed idle agent')
    return entry.closing
  }

  return {
    /**
     * Runs `fn` with the agent's space open and leased. Throws 404 AGENT_NOT_FOUND for an
     * unknown agent (reads), or when no MNEMO_AGENTS_DIR is set.
     */
    async use<T>(id: string, access: AgentAccess, fn: (space: AgentSpace) => Promise<T>): Promise<T> {
      if (!isAgentId(id)) throw appError('AGENT_INVALID')
      if (id === MAIN_AGENT) return fn(deps.main)
      const entry = await acquire(id, access)
      try {
        return await fn(entry.space)
      } finally {
        entry.leases--
        entry.lastUsedMs = now()
        evictIdle()
      }
    },
    /** Every agent (main, open ones and folders in MNEMO_AGENTS_DIR) with what its index holds. */
    async list(): Promise<(AgentSummary & { id: string; open: boolean })[]> {
      const ids = new Set([MAIN_AGENT, ...entries.keys()])
      if (deps.dirReal) {
        for (const dirent of await fs.readdir(deps.dirReal, { withFileTypes: true })) {
          if (dirent.isDirectory() && isAgentId(dirent.name) && dirent.name !== MAIN_AGENT) ids.add(dirent.name)
        }
      }
      const out = []
      for (const id of [...ids].sort()) {
        const entry = id === MAIN_AGENT ? null : entries.get(id)
        if (id === MAIN_AGENT) out.push({ id, open: true, ...spaceSummary(deps.main) })
        else if (entry && !entry.closing) out.push({ id, open: true, ...spaceSummary(entry.space) })
        else out.push({ id, open: false, ...(summaries.get(id) ?? deps.peek(id)) })
        // Reading closed agents' indexes is synchronous work: let requests in between.
        await new Promise((resolve) => setImmediate(resolve))
      }
      return out
    },
    /** Agents open now, main excluded. */
    openCount: (): number => [...entries.values()].filter((e) => !e.closing).length,
    /** Closes every agent but main (which the container closes). */
    async close(): Promise<void> {
      closed = true
      await Promise.all(
        [...entries.values()].map((e) => e.closing ?? e.ready.catch(() => undefined).then(() => close(e))),
      )
    },
  }
}

export type AgentRegistry = ReturnType<typeof createAgentRegistry>
