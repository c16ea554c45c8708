/**
 * What an agent that has a token but no folder yet reads as (SPEC §8): an empty memory. It
 * searches nothing of its own (the team's memory still answers), lists and reads no file,
 * deletes nothing, and its index status is empty; its first accepted write creates its
 * folder (the registry opens a real space for writes). Nothing here touches the disk.
 */
import { checkSourcePath, type FileService } from '../files/file-service.js'
import { createEntryService } from '../files/entry-service.js'
import type { FlushService } from '../files/flush-service.js'
import { surveyOfNothing } from '../files/folder-budget.js'
import { createMemoryPaths } from '../files/memory-paths.js'
import { preconditionHolds, type Precondition } from '../files/preconditions.js'
import { checkNewFileWrite, checkWritablePath, type WriteService } from '../files/write-service.js'
import { createIndexingService, type IndexingServiceDeps } from '../indexing/indexing-service.js'
import { emptySyncResult } from '../indexing/sync-result.js'
import type { SearchedIndex } from '../search/search-plan.js'
import { appError } from '../shared/errors.js'
import type { AgentSpace } from './agent-space.js'

/** The parts of a space requests use: a real one, or an agent's empty one. */
export type SpaceView = Pick<AgentSpace, 'name' | 'files' | 'writes' | 'flush' | 'entries' | 'indexing' | 'folders'> & {
  /** What searches of this space read; null: nothing. */
  target: SearchedIndex | null
}

/** Which paths an agent other than main has (agent-space.ts gives them this layout). */
export const PLAIN_LAYOUT = createMemoryPaths({ extraPaths: [] })

export type EmptySpaceDeps = Pick<IndexingServiceDeps, 'embedding' | 'cache' | 'engine'> & {
  maxFileBytes: number
  /** MNEMO_MAX_FOLDERS_PER_AGENT: what an import may create in it. */
  maxFolders: number
}

/** The empty memory of agent `name`. */
export function emptySpace(name: string, deps: EmptySpaceDeps): SpaceView {
  /** A write that needs the file (If-Match) finds none; others never reach an empty space. */
  function writeNeedingFile(raw: string, mode: 'replace' | 'append', content: string, pre: Precondition): never {
    checkWritablePath(raw, PLAIN_LAYOUT)
    checkNewFileWrite(mode, content, deps.maxFileBytes)
    if (!preconditionHolds(pre, null))
      throw appError('PRECONDITION_FAILED', undefined, { details: { currentSha256: null } })
    throw appError('AGENT_NOT_FOUND', `No agent "${name}": it has no memory yet (its first write creates it)`)
  }
  const noFile = async (raw: string) => {
    const check = checkSourcePath(raw, PLAIN_LAYOUT, { workspace: '', sessions: null })
    return check.kind === 'invalid' ? check : { kind: 'not-found' as const }
  }
  const files: FileService = { list: async () => [], read: noFile, readBytes: noFile }
  const writes: WriteService = {
    put: async (raw, content, pre) => writeNeedingFile(raw, 'replace', content, pre),
    append: async (raw, content, pre) => writeNeedingFile(raw, 'append', content, pre),
    remove: async (raw) => {
      checkWritablePath(raw, PLAIN_LAYOUT)
      throw appError('FILE_NOT_FOUND')
    },
    edit: async (raw) => {
      checkWritablePath(raw, PLAIN_LAYOUT)
      throw appError('FILE_NOT_FOUND')
    },
    verify: async (raw, pre) => {
      checkWritablePath(raw, PLAIN_LAYOUT)
      if (!preconditionHolds(pre, null))
        throw appError('PRECONDITION_FAILED', undefined, { details: { currentSha256: null } })
    },
    // Imports open the agent for writing (creating it): they never reach an empty space.
    restore: async () => {
      throw appError('AGENT_NOT_FOUND')
    },
    revert: async () => undefined,
  }
  // Only a flush without notes reaches here (one with notes creates the agent): it has nothing to sync.
  const flush: FlushService = { flush: async () => ({ indexed: true, drained: true }) }
  // No entries to find, supersede or forget.
  const entries = createEntryService({
    writes,
    flush,
    findEntries: async () => [],
    readFile: async () => null,
    dayFiles: async () => [],
  })
  const indexing = createIndexingService({
    store: { counts: () => [], isOpen: () => true, pendingVectorCount: () => 0 },
    coordinator: {
      request: async (opts) => emptySyncResult(opts.full, opts.reason),
      stopping: () => false,
      status: () => ({ syncing: false, rebuilding: false, queued: false, completedSyncs: 0, lastSync: null }),
    },
    syncTrigger: { status: () => ({ watching: false, watch: { state: 'off' }, dirty: false, changesSeen: 0 }) },
    progress: () => null,
    embedding: deps.embedding,
    cache: deps.cache,
    engine: deps.engine,
  })
  // No folder yet: every folder an import needs is missing, and there is nothing to remove.
  const folders: SpaceView['folders'] = {
    survey: async (dirs) => surveyOfNothing(dirs, PLAIN_LAYOUT.scanRoots(), deps.maxFolders),
    removeEmpty: async () => undefined,
  }
  return { name, target: null, files, writes, flush, entries, indexing, folders }
}
