/**
 * One memory space as the services use it: a workspace folder and its own index — an
 * agent's, a user's inside an agent, or the team's (SPEC §8, §11). The composition root
 * builds it (wiring/agent-space.ts) over the resources every space shares
 * (space-resources.ts) and owns its lifecycle.
 */
import type { EntryService } from '../files/entry-service.js'
import type { FileService } from '../files/file-service.js'
import type { FlushService } from '../files/flush-service.js'
import type { FolderBudget } from '../files/folder-budget.js'
import type { WriteService } from '../files/write-service.js'
import type { IndexingService } from '../indexing/indexing-service.js'
import type { WatchState } from '../indexing/sync-trigger.js'
import type { SyncResult } from '../indexing/sync-result.js'
import type { SearchedIndex } from '../search/search-plan.js'
import type { Space } from '../shared/agent-id.js'

export interface AgentSpace {
  /** The agent id, `<agent>/<user>` for a user's memory, or `team`. */
  readonly name: string
  readonly space: Space
  /** The index file did not exist before (or was of another version): it knows no file yet. */
  readonly fresh: boolean
  readonly files: FileService
  readonly writes: WriteService
  readonly flush: FlushService
  readonly entries: EntryService
  readonly indexing: IndexingService
  readonly target: SearchedIndex
  /** The space's folders against MNEMO_MAX_FOLDERS_PER_AGENT, for an import checked whole before it writes. */
  readonly folders: Pick<FolderBudget, 'survey' | 'removeEmpty'>
  /** How the space notices changes on disk (watching, or rescanning without watches...). */
  watchState(): WatchState
  /** Throws 409 PATH_CHANGED when the space's folder was replaced after it was opened. */
  checkFolder(): Promise<void>
  /**
   * Readiness (GET /ready for main): the index's, and the folder still the one held
   * (checked then, so a probe notices a replaced workspace without any other request).
   */
  readiness(): Promise<{
    ready: boolean
    checks: ReturnType<IndexingService['readiness']>['checks'] & { folder: 'held' | 'replaced' }
  }>
  /** A sync or rebuild is running or queued: closing now would cancel it. */
  isBusy(): boolean
  /**
   * Starts background work: removes temp files of interrupted writes, starts the watcher
   * and then the first sync. `urgent`: a request waits for that sync, which then does not
   * give way to searches; otherwise it all waits for searches in progress first. Resolves
   * once the watcher is ready; `firstSync` settles when that sync is done (null with
   * indexOnStart off).
   */
  start(opts?: { urgent: boolean }): Promise<{ firstSync: Promise<SyncResult> | null }>
  /**
   * Stops watching, lets in-flight writes finish (on disk and indexed), cancels syncs and
   * rebuilds between batches, releases the read threads' connections and closes the index.
   * Idempotent.
   */
  close(): Promise<void>
}
