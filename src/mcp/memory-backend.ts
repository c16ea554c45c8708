/**
 * What the MCP tools call: the four memory operations of one agent. The /mcp endpoint
 * calls the service in-process (createLocalBackend); the stdio entry calls a running
 * mnemo over REST (http-backend.ts). Failures are errors with the service's stable `code`.
 */
import type { AgentGateway } from '../agents/agent-gateway.js'
import type { FileWindow } from '../files/file-service.js'
import type { FlushRequest, FlushResult } from '../files/flush-service.js'
import type { WriteResult } from '../files/write-service.js'
import type { SearchResponse } from '../search/types.js'
import type { Foreground } from '../shared/foreground.js'

export type SearchInput = { query: string; maxResults?: number | undefined; minScore?: number | undefined }
export type GetInput = { path: string; from?: number | undefined; lines?: number | undefined }
export type WriteInput = { path: string; content: string }
export type FlushInput = Pick<FlushRequest, 'content' | 'entries' | 'sessionId' | 'flushId'>

export interface MemoryBackend {
  search(input: SearchInput): Promise<SearchResponse>
  get(input: GetInput): Promise<FileWindow>
  /** Appends to a memory file (created when missing). */
  write(input: WriteInput): Promise<WriteResult>
  flush(input: FlushInput): Promise<FlushResult>
}

/** The service itself, acting as `agent`; searches count as in progress for background indexing. */
export function createLocalBackend(
  memory: Pick<AgentGateway, 'search' | 'readFile' | 'append' | 'flush'>,
  agent: string,
  foreground: Pick<Foreground, 'enter'>,
): MemoryBackend {
  return {
    async search(input) {
      const exit = foreground.enter()
      try {
        return await memory.search(agent, input)
      } finally {
        exit()
      }
    },
    get: (input) => memory.readFile(agent, input.path, input),
    write: (input) => memory.append(agent, input.path, input.content, { ifMatch: null, ifNoneMatch: false }),
    flush: (input) => memory.flush(agent, input),
  }
}
