/**
 * One read thread as the pool (read-threads.ts) holds it: the calls given to it and what
 * it has run, how its worker starts from the threads' entry, and how its errors come back.
 */
import { Worker } from 'node:worker_threads'
import { ERROR_CODES, appError, type ErrorCode } from '../../../shared/errors.js'
import type { WorkerData, WorkerReply, WorkerRequest } from './thread-protocol.js'

/** A request before the pool numbers it (Omit distributed over the union). */
export type Call = WorkerRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never
export type Pending = {
  msg: Call
  local: () => unknown
  resolve: (v: unknown) => void
  reject: (e: unknown) => void
  /** Background work (a preparation for an indexer): it gives way to searches. */
  background?: { queuedAt: number }
  /** The worker (its place among the live ones) this call goes to, while there are that many. */
  pin?: number
}
export type Slot = {
  worker: Worker
  pending: Map<number, Pending>
  startedAt: number
  background: number
  /** Jobs given to it since it started (renew replaces the workers that ran any). */
  jobs: number
  /** Vector searches given to it since it started (renew keeps such a worker: see there). */
  vectors: number
}

/**
 * Starts the thread entry. Under tsx (dev, tests) an entry is TypeScript, so the worker
 * first registers tsx's loader; the built service runs plain JS.
 */
export function spawnWorker(data: WorkerData, entry: URL): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, { workerData: data })
  // Resolved here, not in the worker: eval'd code resolves packages from the cwd.
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'))
  const boot = `import(${tsx}).then((api) => { api.register(); return import(${JSON.stringify(entry.href)}) })`
  return new Worker(boot, { eval: true, workerData: data })
}

/** Runs a call on the main thread's own store instead of a worker, settling it either way. */
export function runHere(p: Pick<Pending, 'local' | 'resolve' | 'reject'>): void {
  try {
    p.resolve(p.local())
  } catch (err) {
    p.reject(err)
  }
}

export function toError(reply: Extract<WorkerReply, { ok: false }>): Error {
  if (reply.code && reply.code in ERROR_CODES) return appError(reply.code as ErrorCode, reply.message)
  return new Error(reply.message)
}
