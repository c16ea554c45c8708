/** Messages between the reader pool and its worker threads. */
import type { KeywordRequest, VectorRequest } from './index-reader.js'

export type WorkerData = { dbPath: string }

export type WorkerRequest =
  | { id: number; op: 'keyword'; req: KeywordRequest }
  | { id: number; op: 'vector'; req: VectorRequest }
  | { id: number; op: 'texts'; ids: number[] }
  /** Close the connection (the index file is about to be replaced). */
  | { id: number; op: 'close' }
  /** Open the index file again. A worker that cannot, exits (the pool replaces it). */
  | { id: number; op: 'open' }

export type WorkerReply =
  { id: number; ok: true; value: unknown } | { id: number; ok: false; code: string | undefined; message: string }

export type WorkerReady = { ready: true }
