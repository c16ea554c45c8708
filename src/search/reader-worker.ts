/**
 * Search worker thread: opens the index read-only and answers IndexReader calls from the
 * pool (reader-pool.ts). Errors travel back as { code, message }; nothing is logged here.
 * Around a rebuild swap the pool asks it to close and reopen its connection; failing to
 * reopen ends the worker, and the pool starts another.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { createIndexStore, type IndexStore } from '../store/index-store.js'
import { loadSqliteVec } from '../store/sqlite-vec.js'
import { createReaderOps, type ReaderOps } from './index-reader.js'
import type { WorkerData, WorkerReply, WorkerRequest } from './reader-protocol.js'

const port = parentPort
if (!port) throw new Error('reader-worker must run in a worker thread')
const { dbPath } = workerData as WorkerData

function open(): { store: IndexStore; ops: ReaderOps } {
  const store = createIndexStore({ dbPath, readonly: true, loadVectorExtension: loadSqliteVec })
  return { store, ops: createReaderOps(store) }
}

let current: { store: IndexStore; ops: ReaderOps } | null = open()

function answer(msg: WorkerRequest): unknown {
  if (msg.op === 'close') {
    current?.store.close()
    current = null
    return null
  }
  if (msg.op === 'open') {
    current ??= open()
    return null
  }
  current ??= open()
  switch (msg.op) {
    case 'keyword':
      return current.ops.keyword(msg.req)
    case 'vector':
      return current.ops.vector(msg.req)
    case 'texts':
      return current.ops.texts(msg.ids)
  }
}

port.on('message', (msg: WorkerRequest) => {
  let reply: WorkerReply
  try {
    reply = { id: msg.id, ok: true, value: answer(msg) }
  } catch (err) {
    // A worker without a connection is of no use: exit, and the pool re-asks elsewhere.
    if (msg.op === 'open') throw err
    const e = err as { code?: unknown; message?: unknown }
    reply = {
      id: msg.id,
      ok: false,
      code: typeof e.code === 'string' ? e.code : undefined,
      message: String(e.message ?? err),
    }
  }
  port.postMessage(reply)
})
port.postMessage({ ready: true })
