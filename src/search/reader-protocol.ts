/** Messages between the reader pool and its worker threads. */
import type { KeywordRequest, VectorRequest } from './index-reader.js'

export type WorkerData = {
  /** Most index files a worker keeps open at once (least recently used are closed). */
  maxConnections: number
}

/** Every call names the index file it reads: one pool serves every agent's index. */
export type WorkerRequest =
  | { id: number; dbPath: string; op: 'keyword'; req: KeywordRequest }
  | { id: number; dbPath: string; op: 'vector'; req: VectorRequest }
  | { id: number; dbPath: string; op: 'texts'; ids: number[] }
  /** Close the connection to this file (it is about to be replaced, or its agent closed). */
  | { id: number; dbPath: string; op: 'close' }
  /** Checkpoint the file's write-ahead log (store/wal-checkpoint.ts). */
  | { id: number; dbPath: string; op: 'checkpoint' }

export type WorkerReply =
  | { id: number; ok: true; value: unknown }
  /** `unopened`: the worker could not open the file, so the call never reached it. */
  | { id: number; ok: false; code: string | undefined; message: string; unopened?: boolean }

export type WorkerReady = { ready: true }
