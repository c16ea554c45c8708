/**
 * Search worker thread: answers IndexReader calls from the pool (reader-pool.ts) over
 * read-only connections, one per index file it is asked about (every agent has its own),
 * opened on first use and kept in a bounded least-recently-used set. Errors travel back as
 * { code, message }; nothing is logged here. Around a rebuild swap, or when an agent is
 * closed, the pool asks it to close that file's connection. It also checkpoints indexes' logs
 * and prepares files' rows for the indexers (reader-pool.ts).
 */
import { parentPort, workerData } from 'node:worker_threads'
import { NEVER_YIELD } from '../indexing/chunker.js'
import { prepareText } from '../indexing/prepare-file.js'
import { createLru } from '../shared/lru.js'
import { createIndexStore, type IndexStore } from '../store/sqlite/index-store.js'
import { loadSqliteVec } from '../store/sqlite/sqlite-vec.js'
import { checkpointWal } from '../store/sqlite/wal-checkpoint.js'
import { createReaderOps, type ReaderOps } from './index-reader.js'
import type { WorkerData, WorkerReply, WorkerRequest } from './reader-protocol.js'

const port = parentPort
if (!port) throw new Error('reader-worker must run in a worker thread')
const { maxConnections } = workerData as WorkerData

type Connection = { store: IndexStore; ops: ReaderOps }
const connections = createLru<string, Connection>(maxConnections, (_dbPath, conn) => conn.store.close())

class OpenError extends Error {}

function connection(dbPath: string): Connection {
  let conn = connections.get(dbPath)
  if (!conn) {
    let store: IndexStore
    try {
      store = createIndexStore({ dbPath, readonly: true, loadVectorExtension: loadSqliteVec })
    } catch (err) {
      throw new OpenError(err instanceof Error ? err.message : String(err), { cause: err })
    }
    conn = { store, ops: createReaderOps(store) }
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
    case 'prepare':
      // No slicing: a worker holds up no one's event loop but its own.
      return prepareText(msg.input, msg.chunking, NEVER_YIELD)
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
