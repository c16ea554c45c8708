/**
 * IndexReader over a pool of worker threads, each with its own read-only SQLite connection
 * (WAL lets them read while the main thread writes). Searches then use every core and never
 * hold the main event loop, which keeps serving /health, writes and syncs. A call goes to
 * the worker with the fewest calls in flight. A worker that dies is replaced; while none is
 * alive, calls run on the main thread's own store (logged), so a broken pool degrades to
 * slower searches, never to failed ones. suspend() closes every worker's connection before a
 * rebuild swap replaces the file, holding new calls until resume() reopens them.
 */
import { Worker } from 'node:worker_threads'
import { ERROR_CODES, appError, type ErrorCode } from '../shared/errors.js'
import type { Logger } from '../shared/logger.js'
import type { IndexReader, ReaderOps } from './index-reader.js'
import type { WorkerData, WorkerReady, WorkerReply, WorkerRequest } from './reader-protocol.js'

/** A worker that dies sooner than this after starting is not replaced again (ms). */
const MIN_WORKER_LIFETIME_MS = 5000

/** A request before the pool numbers it (Omit distributed over the union). */
type Call = WorkerRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never
type Pending = {
  msg: Call | Control
  local: () => unknown
  resolve: (v: unknown) => void
  reject: (e: unknown) => void
}
/** Connection control messages, sent to one worker each and never re-asked elsewhere. */
type Control = { op: 'close' } | { op: 'open' }
type Slot = { worker: Worker; pending: Map<number, Pending>; startedAt: number }

/**
 * Starts the worker entry next to this module. Under tsx (dev, tests) that entry is
 * TypeScript, so the worker first registers tsx's loader; the built service runs plain JS.
 */
function spawnWorker(data: WorkerData): Worker {
  const self = import.meta.url
  if (self.endsWith('.ts')) {
    const entry = JSON.stringify(new URL('./reader-worker.ts', self).href)
    // Resolved here, not in the worker: eval'd code resolves packages from the cwd.
    const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'))
    const boot = `import(${tsx}).then((api) => { api.register(); return import(${entry}) })`
    return new Worker(boot, { eval: true, workerData: data })
  }
  return new Worker(new URL('./reader-worker.js', self), { workerData: data })
}

function toError(reply: Extract<WorkerReply, { ok: false }>): Error {
  if (reply.code && reply.code in ERROR_CODES) return appError(reply.code as ErrorCode, reply.message)
  return new Error(reply.message)
}

export type ReaderPoolDeps = {
  dbPath: string
  size: number
  /** Vector shards in the index (1: vector searches are not split). */
  shards: number
  /** Used while no worker is alive. */
  fallback: ReaderOps
  log: Logger
}

export function createReaderPool(deps: ReaderPoolDeps): IndexReader & { liveWorkers(): number } {
  const slots: Slot[] = []
  let nextId = 0
  let closing = false
  let warnedNoWorker = false
  /** While set, calls wait for it: the workers' connections are closed for a swap. */
  let gate: Promise<void> | null = null
  let openGate: () => void = () => undefined
  /** Workers that died while suspended, started again by resume(). */
  let owedWorkers = 0

  function start(): Slot {
    warnedNoWorker = false
    const slot: Slot = { worker: spawnWorker({ dbPath: deps.dbPath }), pending: new Map(), startedAt: Date.now() }
    slot.worker.on('message', (msg: WorkerReply | WorkerReady) => {
      if ('ready' in msg) return
      const call = slot.pending.get(msg.id)
      if (!call) return
      slot.pending.delete(msg.id)
      if (msg.ok) call.resolve(msg.value)
      else call.reject(toError(msg))
    })
    slot.worker.on('error', (err) => deps.log.error({ err }, 'search worker failed'))
    slot.worker.on('exit', (code) => {
      const index = slots.indexOf(slot)
      if (index >= 0) slots.splice(index, 1)
      if (closing) {
        for (const p of slot.pending.values()) p.reject(new Error('the search pool is closed'))
        return
      }
      const shortLived = Date.now() - slot.startedAt < MIN_WORKER_LIFETIME_MS
      deps.log.error({ code, replaced: !shortLived, live: slots.length }, 'search worker exited')
      // A worker started mid-swap would open the file being replaced: it starts at resume.
      if (!shortLived && gate) owedWorkers++
      else if (!shortLived) slots.push(start())
      // Reads are idempotent: what the dead worker had not answered is asked again elsewhere.
      // A control message needs no answer from a worker that is gone.
      for (const p of slot.pending.values()) {
        if (p.msg.op === 'close' || p.msg.op === 'open') p.resolve(null)
        else call(p.msg, p.local).then(p.resolve, p.reject)
      }
    })
    return slot
  }

  for (let i = 0; i < deps.size; i++) slots.push(start())

  function send<T>(slot: Slot, msg: Call | Control, local: () => T): Promise<T> {
    const id = ++nextId
    return new Promise<T>((resolve, reject) => {
      slot.pending.set(id, { msg, local, resolve: resolve as (v: unknown) => void, reject })
      slot.worker.postMessage({ ...msg, id })
    })
  }

  async function call<T>(msg: Call, local: () => T): Promise<T> {
    while (gate) await gate
    const slot = slots.reduce<Slot | undefined>(
      (best, s) => (!best || s.pending.size < best.pending.size ? s : best),
      undefined,
    )
    if (!slot) {
      if (!warnedNoWorker) deps.log.warn('no search worker alive: searching on the main thread')
      warnedNoWorker = true
      return local()
    }
    return send(slot, msg, local)
  }

  return {
    keyword: (req) => call({ op: 'keyword', req }, () => deps.fallback.keyword(req)),
    async vector(req) {
      // Exact KNN is a full scan: split it by shard over the live workers so they scan in
      // parallel, then keep the nearest `limit` of their answers.
      const groups = Math.min(slots.length, deps.shards)
      if (groups <= 1) return call({ op: 'vector', req }, () => deps.fallback.vector(req))
      const parts = Array.from({ length: groups }, (_, g) =>
        Array.from({ length: deps.shards }, (_, s) => s).filter((s) => s % groups === g),
      )
      const answers = await Promise.all(
        parts.map((shards) =>
          call({ op: 'vector', req: { ...req, shards } }, () => deps.fallback.vector({ ...req, shards })),
        ),
      )
      return answers
        .flat()
        .sort((a, b) => b.vectorScore - a.vectorScore || a.id - b.id)
        .slice(0, req.limit)
    },
    texts: (ids) => call({ op: 'texts', ids }, () => deps.fallback.texts(ids)),
    liveWorkers: () => slots.length,
    /**
     * Holds new calls and closes every worker's connection once the calls it already has
     * are answered (a worker handles its messages in order).
     */
    async suspend() {
      if (gate) throw new Error('the search pool is already suspended')
      gate = new Promise((resolve) => (openGate = resolve))
      await Promise.all(slots.map((slot) => send(slot, { op: 'close' }, () => null)))
    },
    /** Reopens the connections (before any held call reaches a worker) and releases calls. */
    resume() {
      // Not awaited: calls sent after it are answered after the reopen. A worker that
      // cannot reopen exits and is replaced.
      for (const slot of slots) send(slot, { op: 'open' }, () => null).catch(() => undefined)
      for (; owedWorkers > 0; owedWorkers--) slots.push(start())
      gate = null
      openGate()
    },
    async close() {
      closing = true
      await Promise.all(slots.map((s) => s.worker.terminate()))
    },
  }
}
