/**
 * SQLite's read threads: IndexReader over a pool of worker threads shared by every agent's
 * index (the engine hands a space's reader out, engine.ts readerFor): each worker
 * holds read-only SQLite connections to the index files it is asked about (WAL lets them
 * read while the main thread writes). Searches then use every core and never hold the main
 * event loop, which keeps serving /health, writes and syncs. Calls wait in one queue per
 * index file, taken from in turn (fair-queue.ts), and go to the worker with the fewest
 * calls in flight, at most IN_FLIGHT_PER_WORKER each: an agent with many heavy searches in
 * flight waits behind its own, never every other agent behind it (issue 16). A worker that
 * dies is replaced; while none is alive, or when a worker cannot open an index, calls run on
 * the main thread's own store (logged), so a broken pool degrades to slower searches, never
 * to failed ones. A vector search is split by shard over the workers, and each part always
 * goes to the same worker: a worker's quantised copy of the vectors then holds only its
 * shards (quantized-vectors.ts), half of them each instead of all twice.
 *
 * The workers also checkpoint the indexes' write-ahead logs (checkpoint) and run the jobs
 * their entry registers (run: preparing files' rows for the indexers), off the main thread;
 * jobs run in the background give way to searches. After big indexing work, renew replaces
 * the workers that ran jobs, so what preparing left in their heaps goes back to the system.
 *
 * forIndex(dbPath) is the reader of one index file. Its suspend() closes every worker's
 * connection to that file before a rebuild swap replaces it, holding that file's new calls
 * until resume(); its close() releases the workers' connections when the agent is closed.
 */
import type { Logger } from '../../../shared/logger.js'
import type { IndexReader, ReaderOps } from '../../index-reader.js'
import { checkpointWal } from '../wal-checkpoint.js'
import { createFairQueue } from './fair-queue.js'
import type { WorkerData, WorkerReady, WorkerReply, WorkerRequest } from './thread-protocol.js'
import { runHere, spawnWorker, toError, type Call, type Pending, type Slot } from './worker-slot.js'

/** A worker that dies sooner than this after starting is not replaced again (ms). */
const MIN_WORKER_LIFETIME_MS = 5000
/**
 * Calls a worker is given at once: two keep it busy across a message's round trip; more
 * would let the queue's turns come late.
 */
const IN_FLIGHT_PER_WORKER = 2
/**
 * Background calls given to the workers at once while searches come: a search that comes
 * meanwhile shares the cores with at most one (a few ms). While they are quiet, every worker
 * takes them as it takes searches: with one at a time, a worker finished a preparation and
 * waited for the main thread (busy writing the one before) to send it the next, idle half of
 * a first sync.
 */
const BACKGROUND_IN_FLIGHT = 1
/**
 * Longest a preparation waits for searches to leave the workers (ms): like a background
 * pass's pause (sync-pass.ts), a heavy search load slows a first sync down, never stops it.
 */
const BACKGROUND_MAX_WAIT_MS = 25

/** The calls that answer a search. */
const SEARCHES: ReadonlySet<WorkerRequest['op']> = new Set(['keyword', 'vector', 'texts'])

export type ReadThreadsDeps = {
  size: number
  /** Vector shards in every index now (1: vector searches are not split), read at each search. */
  shards: () => number
  /** Index files each worker keeps open at once. */
  maxConnections: number
  /** Chunks from which a worker's vector searches pre-select by quantised vectors (index-store.ts). */
  quantizedFrom?: number | undefined
  log: Logger
  /** Longest a background call waits for searches (ms; default BACKGROUND_MAX_WAIT_MS). */
  backgroundMaxWaitMs?: number
  /**
   * Whether no search has come for a while (shared/foreground.ts SEARCHES_QUIET_MS): background
   * jobs then use every worker; while searches come they run on the main thread.
   */
  searchesQuiet: () => boolean
  /**
   * The script each thread runs: it calls thread-main.ts serveIndexThread with the searches
   * and jobs (the composition root's wiring/index-thread.ts). The tests start a bundled one: a
   * worker that first registers tsx's loader took about 70 ms to start, against 33 ms, and
   * the tests start some 700 of them.
   */
  entry: URL
}

export function createReadThreads(deps: ReadThreadsDeps) {
  const slots: Slot[] = []
  /** Workers renew replaced: each answers what it was given, then ends; it is given nothing more. */
  const retired = new Set<Slot>()
  let nextId = 0
  let closing = false
  let warnedNoWorker = false
  /** Files that workers could not open, warned about once each. */
  const warnedUnopened = new Set<string>()
  /** Per index file being swapped: calls for it wait until the gate opens. */
  const gates = new Map<string, { promise: Promise<void>; open: () => void }>()
  /** Calls not yet given to a worker, per index file. */
  const queue = createFairQueue<Pending>()
  /** Background calls not yet given to a worker, per queue (run). */
  const backgroundQueue = createFairQueue<Pending>()
  /** Calls given to workers and not answered yet, per index file. */
  const inFlight = new Map<string, number>()
  /** Resolved whenever a call is answered (drained() waits on them). */
  let answered: (() => void)[] = []

  function start(): Slot {
    warnedNoWorker = false
    const data: WorkerData = { maxConnections: deps.maxConnections, quantizedFrom: deps.quantizedFrom ?? 0 }
    const slot: Slot = {
      worker: spawnWorker(data, deps.entry),
      pending: new Map(),
      startedAt: Date.now(),
      background: 0,
      jobs: 0,
      vectors: 0,
    }
    slot.worker.on('message', (msg: WorkerReply | WorkerReady) => {
      if ('ready' in msg) return
      const call = slot.pending.get(msg.id)
      if (!call) return
      slot.pending.delete(msg.id)
      if (call.background) slot.background--
      done(call)
      if (msg.ok) call.resolve(msg.value)
      else if (msg.unopened) {
        if (!warnedUnopened.has(call.msg.dbPath)) {
          deps.log.warn(
            { dbPath: call.msg.dbPath, error: msg.message },
            'a search worker cannot open the index: searching on the main thread',
          )
          warnedUnopened.add(call.msg.dbPath)
        }
        runHere(call)
      } else call.reject(toError(msg))
      if (retired.has(slot) && slot.pending.size === 0) void slot.worker.terminate()
      dispatch()
    })
    slot.worker.on('error', (err) => deps.log.error({ err }, 'search worker failed'))
    slot.worker.on('exit', (code) => {
      const replaced = retired.delete(slot)
      const index = slots.indexOf(slot)
      if (index >= 0) slots.splice(index, 1)
      if (closing) {
        for (const p of slot.pending.values()) {
          done(p)
          p.reject(new Error('the search pool is closed'))
        }
        return
      }
      if (!replaced) {
        const shortLived = Date.now() - slot.startedAt < MIN_WORKER_LIFETIME_MS
        deps.log.error({ code, replaced: !shortLived, live: slots.length }, 'search worker exited')
        // In the dead one's place: the vector parts pinned to that place go to the new worker,
        // whose copy then holds the same shards (the others' copies stay as they are).
        if (!shortLived) slots.splice(index >= 0 ? index : slots.length, 0, start())
      }
      // Reads are idempotent: what the dead worker had not answered is asked again elsewhere,
      // first in its queue. A close needs no answer from a worker that is gone.
      for (const p of slot.pending.values()) {
        done(p)
        if (p.msg.op === 'close') p.resolve(null)
        else (p.background ? backgroundQueue : queue).putBack(p.msg.dbPath, p)
      }
      dispatch()
    })
    return slot
  }

  for (let i = 0; i < deps.size; i++) slots.push(start())

  /** Gives `p` to `slot`. */
  function post(slot: Slot, p: Pending): void {
    const id = ++nextId
    slot.pending.set(id, p)
    if (p.background) slot.background++
    if (p.msg.op === 'job') slot.jobs++
    if (p.msg.op === 'vector') slot.vectors++
    inFlight.set(p.msg.dbPath, (inFlight.get(p.msg.dbPath) ?? 0) + 1)
    slot.worker.postMessage({ ...p.msg, id })
  }

  /** `p` was answered (or its worker died). */
  function done(p: Pending): void {
    const n = (inFlight.get(p.msg.dbPath) ?? 1) - 1
    if (n > 0) inFlight.set(p.msg.dbPath, n)
    else inFlight.delete(p.msg.dbPath)
    const waiting = answered
    answered = []
    waiting.forEach((resolve) => resolve())
  }

  /**
   * Gives queued calls, in turn, to workers with room; runs them here while no worker is
   * alive. Searches go first, to the worker with the fewest calls (one without background
   * work when they tie). Background calls use one worker at a time, one that was idle or
   * already has them, and only while no search waits or runs, unless the oldest has waited
   * BACKGROUND_MAX_WAIT_MS: a first sync's preparations then leave a worker, and the cores,
   * to searches. While searches are quiet they use every worker.
   */
  function dispatch(): void {
    for (;;) {
      if (slots.length === 0) {
        for (let p = queue.take(); p; p = queue.take()) runHere(p)
        for (let p = backgroundQueue.take(); p; p = backgroundQueue.take()) runHere(p)
        return
      }
      const open = slots
        .filter((s) => s.pending.size < IN_FLIGHT_PER_WORKER)
        .sort((a, b) => a.pending.size - b.pending.size || a.background - b.background)
      const best = open[0]
      if (!best) return
      const overdue = backgroundOverdue()
      const target = overdue || !queue.has() ? backgroundTarget(best, overdue) : undefined
      const background = target && backgroundQueue.take()
      if (target && background) {
        post(target, background)
        continue
      }
      const taken = takeSearch(open)
      if (!taken) return
      post(taken.slot, taken.p)
    }
  }

  /** The next queued call in turn for the least busy of `open` workers it may go to (pin). */
  function takeSearch(open: Slot[]): { slot: Slot; p: Pending } | undefined {
    for (const slot of open) {
      const at = slots.indexOf(slot)
      const p = queue.take((c) => c.pin === undefined || c.pin === at || c.pin >= slots.length)
      if (p) return { slot, p }
    }
    return undefined
  }

  /**
   * The worker a background call may start on now, if any: the one with background work
   * already, else an idle one (any with room once overdue or while searches are quiet); none
   * while a search runs, unless overdue. Like a background pass, it waits for searches in
   * progress: they share the cores. (A checkpoint mostly waits on the disk: preparations go
   * on beside it.)
   */
  function backgroundTarget(best: Slot, overdue: boolean): Slot | undefined {
    if (!backgroundQueue.has()) return undefined
    if (!overdue && slots.some((s) => [...s.pending.values()].some((p) => SEARCHES.has(p.msg.op)))) return undefined
    if (deps.searchesQuiet()) return best
    const target = slots.find((s) => s.background > 0) ?? (overdue ? best : slots.find((s) => s.pending.size === 0))
    if (!target || target.pending.size >= IN_FLIGHT_PER_WORKER || target.background >= BACKGROUND_IN_FLIGHT) {
      return undefined
    }
    return target
  }

  /** Whether the oldest queued background call has waited its longest for searches. */
  const backgroundOverdue = (): boolean => {
    const oldest = backgroundQueue.peek()
    const maxWait = deps.backgroundMaxWaitMs ?? BACKGROUND_MAX_WAIT_MS
    return oldest?.background !== undefined && performance.now() - oldest.background.queuedAt >= maxWait
  }

  /** `background`: work that gives way to searches; `pin`: the worker it goes to (Pending). */
  async function call<T>(
    msg: Call,
    local: () => T | Promise<T>,
    { background = false, pin }: { background?: boolean; pin?: number } = {},
  ): Promise<T> {
    for (let gate = gates.get(msg.dbPath); gate; gate = gates.get(msg.dbPath)) await gate.promise
    if (slots.length === 0) {
      if (!warnedNoWorker) deps.log.warn('no search worker alive: searching on the main thread')
      warnedNoWorker = true
      return local()
    }
    return new Promise<T>((resolve, reject) => {
      const p: Pending = {
        msg,
        local,
        resolve: resolve as (v: unknown) => void,
        reject,
        ...(pin !== undefined && { pin }),
      }
      if (background) backgroundQueue.push(msg.dbPath, { ...p, background: { queuedAt: performance.now() } })
      else queue.push(msg.dbPath, p)
      dispatch()
    })
  }

  /** Resolves once no call for `dbPath` is queued or in flight. */
  async function drained(dbPath: string): Promise<void> {
    while (queue.has(dbPath) || inFlight.has(dbPath)) await new Promise<void>((resolve) => answered.push(resolve))
  }

  /** Sends `msg` to `slot` at once, past the queue (closing connections). */
  const direct = (slot: Slot, msg: Call): Promise<unknown> =>
    new Promise((resolve, reject) => post(slot, { msg, local: () => null, resolve, reject }))

  /**
   * Closes every worker's connection to `dbPath` once the calls for it are answered, a
   * replaced one's too: before a rebuild swap, no connection may stay on the old file.
   */
  async function closeEverywhere(dbPath: string): Promise<void> {
    await drained(dbPath)
    await Promise.all([...slots, ...retired].map((slot) => direct(slot, { op: 'close', dbPath })))
  }

  /** The reader of one index file; `fallback` answers on the main thread when no worker can. */
  function forIndex(dbPath: string, fallback: ReaderOps): IndexReader {
    return {
      keyword: (req) => call({ op: 'keyword', dbPath, req }, () => fallback.keyword(req)),
      async vector(req) {
        // Exact KNN is a full scan: split it by shard over the live workers so they scan in
        // parallel, then keep the nearest `limit` of their answers. Part g always goes to the
        // g-th worker, which then holds only those shards' codes (quantized-vectors.ts).
        const shards = deps.shards()
        const groups = Math.min(slots.length, shards)
        if (groups <= 1) return call({ op: 'vector', dbPath, req }, () => fallback.vector(req))
        const parts = Array.from({ length: groups }, (_, g) =>
          Array.from({ length: shards }, (_, s) => s).filter((s) => s % groups === g),
        )
        const answers = await Promise.all(
          parts.map((shards, pin) =>
            call({ op: 'vector', dbPath, req: { ...req, shards } }, () => fallback.vector({ ...req, shards }), { pin }),
          ),
        )
        return answers
          .flat()
          .sort((a, b) => b.vectorScore - a.vectorScore || a.id - b.id)
          .slice(0, req.limit)
      },
      texts: (ids) => call({ op: 'texts', dbPath, ids }, () => fallback.texts(ids)),
      async suspend() {
        if (gates.has(dbPath)) throw new Error('the index is already suspended')
        let open: () => void = () => undefined
        const promise = new Promise<void>((resolve) => (open = resolve))
        gates.set(dbPath, { promise, open })
        await closeEverywhere(dbPath)
      },
      resume() {
        // Workers reopen the file on their next call for it.
        gates.get(dbPath)?.open()
        gates.delete(dbPath)
      },
      close: () => closeEverywhere(dbPath),
    }
  }

  return {
    forIndex,
    /**
     * Checkpoints the write-ahead log of `dbPath` on a worker (on the main thread while no
     * worker is alive), so the writer's commits never do it.
     */
    checkpoint: (dbPath: string): Promise<unknown> => call({ op: 'checkpoint', dbPath }, () => checkpointWal(dbPath)),
    /**
     * Runs a job the threads' entry registered on a worker (`local()` while none is alive), in
     * `queue` (one per agent, so agents' syncs take turns); as background work (dispatch)
     * unless a request waits for it, and then with `local()` while searches come
     * (`searchesQuiet`).
     */
    run: <T>(queue: string, job: string, args: unknown[], local: () => Promise<T>, background: boolean) =>
      background && !deps.searchesQuiet()
        ? local()
        : call<T>({ op: 'job', dbPath: queue, job, args }, local, { background }),
    /**
     * Replaces every worker that ran jobs since it started with a new one, in its place (the
     * vector parts pinned there go to the new one). Preparing a first sync's files leaves a
     * worker's heap and malloc arena at their peak, which V8 and glibc keep for as long as the
     * thread lives (BENCHMARKS.md, "read threads renewed after big indexing work"); a worker
     * that ends gives all of it back. The old one answers the calls it was given, then ends;
     * new calls go to the new one, which opens its connections on first use. A worker that
     * has answered a vector search is kept: its quantised copy of the vectors (122 MB at a
     * million chunks) would be read again, and held twice meanwhile.
     * Returns how many were replaced.
     */
    renew(): number {
      if (closing) return 0
      let renewed = 0
      slots.forEach((slot, at) => {
        if (slot.jobs === 0 || slot.vectors > 0) return
        slots[at] = start()
        retired.add(slot)
        if (slot.pending.size === 0) void slot.worker.terminate()
        renewed++
      })
      if (renewed > 0) deps.log.debug({ renewed }, 'search workers renewed after indexing work')
      return renewed
    },
    liveWorkers: () => slots.length,
    /** Whether a search's call is waiting for a worker or running on one (background jobs aside). */
    searching: (): boolean => queue.has() || slots.some((s) => s.pending.size > s.background),
    async close(): Promise<void> {
      closing = true
      for (const q of [queue, backgroundQueue]) {
        for (let p = q.take(); p; p = q.take()) p.reject(new Error('the search pool is closed'))
      }
      await Promise.all([...slots, ...retired].map((s) => s.worker.terminate()))
    },
  }
}

export type ReadThreads = ReturnType<typeof createReadThreads>
