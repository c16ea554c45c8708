/** Messages between the reader pool and its worker threads. */
import type { ChunkOptions } from '../indexing/chunker.js'
import type { FileInput } from '../indexing/prepare-file.js'
import type { KeywordRequest, VectorRequest } from './index-reader.js'

export type WorkerData = {
  /** Most index files a worker keeps open at once (least recently used are closed). */
  maxConnections: number
}

/**
 * Every call names the index file it reads (one pool serves every agent's index), or for a
 * preparation the queue it waits in (reader-pool.ts prepare).
 */
export type WorkerRequest =
  | { id: number; dbPath: string; op: 'keyword'; req: KeywordRequest }
  | { id: number; dbPath: string; op: 'vector'; req: VectorRequest }
  | { id: number; dbPath: string; op: 'texts'; ids: number[] }
  /** Close the connection to this file (it is about to be replaced, or its agent closed). */
  | { id: number; dbPath: string; op: 'close' }
  /** Checkpoint the file's write-ahead log (store/wal-checkpoint.ts). */
  | { id: number; dbPath: string; op: 'checkpoint' }
  /** Chunk and analyse a file's text (indexing/prepare-file.ts prepareText). */
  | { id: number; dbPath: string; op: 'prepare'; input: FileInput; chunking: ChunkOptions }

export type WorkerReply =
  | { id: number; ok: true; value: unknown }
  /** `unopened`: the worker could not open the file, so the call never reached it. */
  | { id: number; ok: false; code: string | undefined; message: string; unopened?: boolean }

export type WorkerReady = { ready: true }
