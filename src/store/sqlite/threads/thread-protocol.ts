/** Messages between the read threads (read-threads.ts) and each thread (thread-main.ts). */
import type { KeywordRequest, VectorRequest } from '../../index-reader.js'

export type WorkerData = {
  /** Most index files a thread keeps open at once (least recently used are closed). */
  maxConnections: number
  /** Chunks from which vector searches pre-select by quantised vectors (index-store.ts). */
  quantizedFrom: number
}

/**
 * Every call names the index file it reads (one set of threads serves every agent's index),
 * or for a job the queue it waits in (read-threads.ts run).
 */
export type WorkerRequest =
  | { id: number; dbPath: string; op: 'keyword'; req: KeywordRequest }
  | { id: number; dbPath: string; op: 'vector'; req: VectorRequest }
  | { id: number; dbPath: string; op: 'texts'; ids: number[] }
  /** Close the connection to this file (it is about to be replaced, or its agent closed). */
  | { id: number; dbPath: string; op: 'close' }
  /** Checkpoint the file's write-ahead log (wal-checkpoint.ts). */
  | { id: number; dbPath: string; op: 'checkpoint' }
  /** Run a job the thread's entry registered (ThreadJobs), such as preparing a file's rows. */
  | { id: number; dbPath: string; op: 'job'; job: string; args: unknown[] }

export type WorkerReply =
  | { id: number; ok: true; value: unknown }
  /** `unopened`: the thread could not open the file, so the call never reached it. */
  | { id: number; ok: false; code: string | undefined; message: string; unopened?: boolean }

export type WorkerReady = { ready: true }
