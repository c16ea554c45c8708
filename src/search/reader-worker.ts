/**
 * Search worker thread: opens the index read-only and answers IndexReader calls from the
 * pool (reader-pool.ts). Errors travel back as { code, message }; nothing is logged here.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { createIndexStore } from '../store/index-store.js'
import { loadSqliteVec } from '../store/sqlite-vec.js'
import { createReaderOps } from './index-reader.js'
import type { WorkerData, WorkerReply, WorkerRequest } from './reader-protocol.js'

const port = parentPort
if (!port) throw new Error('reader-worker must run in a worker thread')
const { dbPath } = workerData as WorkerData
const store = createIndexStore({ dbPath, readonly: true, loadVectorExtension: loadSqliteVec })
const ops = createReaderOps(store)

port.on('message', (msg: WorkerRequest) => {
  let reply: WorkerReply
  try {
    switch (msg.op) {
      case 'keyword':
        reply = { id: msg.id, ok: true, value: ops.keyword(msg.req) }
        break
      case 'vector':
        reply = { id: msg.id, ok: true, value: ops.vector(msg.req) }
        break
      case 'texts':
        reply = { id: msg.id, ok: true, value: ops.texts(msg.ids) }
        break
    }
  } catch (err) {
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
