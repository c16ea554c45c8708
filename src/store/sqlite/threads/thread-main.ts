/**
 * The body of one read thread: answers the read threads' calls (read-threads.ts) over
 * read-only connections, one per index file it is asked about (every agent has its own),
 * opened on first use and kept in a bounded least-recently-used set. Errors travel back as
 * { code, message }; nothing is logged here. Around a rebuild swap, or when an agent is
 * closed, it is asked to close that file's connection. It also checkpoints indexes' logs,
 * and runs the jobs its entry registers (the composition root's thread entry: preparing
 * files' rows for the indexers).
 *
 * What a search does is given by the entry too (`readOps`): the engine holds the threads,
 * the search pipeline the searches.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { createLru } from '../../../shared/lru.js'
import type { ReaderOps } from '../../index-reader.js'
import type { ReadOpsFactory } from '../../port.js'
import { createIndexStore, type IndexStore } from '../index-store.js'
import { loadSqliteVec } from '../sqlite-vec.js'
import { checkpointWal } from '../wal-checkpoint.js'
import type { WorkerData, WorkerReply, WorkerRequest } from './thread-protocol.js'

/** Jobs a thread runs by name; their arguments and answers cross the thread as clones. */
export type ThreadJobs = Record<string, (...args: never[]) => unknown>

class OpenError extends Error {}

export function serveIndexThread(handlers: { readOps: ReadOpsFactory; jobs: ThreadJobs }): void {
  const port = parentPort
  if (!port) throw new Error('an index thread must run in a worker thread')
  const { maxConnections, quantizedFrom } = workerData as WorkerData

  type Connection = { store: IndexStore; ops: ReaderOps }
  const connections = createLru<string, Connection>(maxConnections, (_dbPath, conn) => conn.store.close())

  function connection(dbPath: string): Connection {
    let conn = connections.get(dbPath)
    if (!conn) {
      let store: IndexStore
      try {
        store = createIndexStore({ dbPath, readonly: true, loadVectorExtension: loadSqliteVec, quantizedFrom })
      } catch (err) {
        throw new OpenError(err instanceof Error ? err.message : String(err), { cause: err })
      }
      conn = { store, ops: handlers.readOps(store) }
      connections.set(dbPath, conn)
    }
    return conn
  }

  function answer(msg: WorkerRequest): unknown {
    switch (msg.op) {
      case 'close':
        connections.delete(msg.dbPath)
        return null
      case 'keyword':
        return connection(msg.dbPath).ops.keyword(msg.req)
      case 'vector':
        return connection(msg.dbPath).ops.vector(msg.req)
      case 'texts':
        return connection(msg.dbPath).ops.texts(msg.ids)
      case 'checkpoint':
        return checkpointWal(msg.dbPath)
      case 'job': {
        const job = handlers.jobs[msg.job] as ((...args: unknown[]) => unknown) | undefined
        if (!job) throw new Error(`no job named ${msg.job} on the index threads`)
        return job(...msg.args)
      }
    }
  }

  /** Answers one call; every error travels back (an open failure marked as such). */
  async function reply(msg: WorkerRequest): Promise<WorkerReply> {
    try {
      return { id: msg.id, ok: true, value: await answer(msg) }
    } catch (err) {
      const e = err as { code?: unknown; message?: unknown }
      return {
        id: msg.id,
        ok: false,
        code: typeof e.code === 'string' ? e.code : undefined,
        message: String(e.message ?? err),
        ...(err instanceof OpenError ? { unopened: true } : {}),
      }
    }
  }

  port.on('message', (msg: WorkerRequest) => void reply(msg).then((r) => port.postMessage(r)))
  port.postMessage({ ready: true })
}
