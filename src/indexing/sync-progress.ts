/**
 * Progress of the sync or rebuild running now, for GET /index and a log line every few
 * seconds (a first sync of a large workspace, or a rebuild with a slow embedding API, can
 * take minutes). Counts are what this pass has done of what it knows it will do.
 */
import type { Logger } from '../shared/logger.js'

/** How often a running pass logs its progress, in ms. */
export const PROGRESS_LOG_MS = 5000

export type SyncPhase = 'scanning' | 'indexing' | 'embedding' | 'deleting'

export type SyncProgress = {
  phase: SyncPhase
  full: boolean
  reason: string
  filesDone: number
  /** Files to look at; 0 while scanning. */
  filesTotal: number
  chunksEmbedded: number
  /** Chunks sent for embedding so far plus those still known to wait; 0 without a provider. */
  chunksToEmbed: number
  startedAt: string
}

export function createProgress(opts: { full: boolean; reason: string; log: Logger; now: () => number }) {
  const state: SyncProgress = {
    phase: 'scanning',
    full: opts.full,
    reason: opts.reason,
    filesDone: 0,
    filesTotal: 0,
    chunksEmbedded: 0,
    chunksToEmbed: 0,
    startedAt: new Date(opts.now()).toISOString(),
  }
  let loggedAt = opts.now()

  /** Logs the state when the last line is PROGRESS_LOG_MS old. */
  function tick(): void {
    const at = opts.now()
    if (at - loggedAt < PROGRESS_LOG_MS) return
    loggedAt = at
    opts.log.info({ ...state }, 'sync progress')
  }

  return {
    snapshot: (): SyncProgress => ({ ...state }),
    phase(phase: SyncPhase): void {
      state.phase = phase
      tick()
    },
    files(total: number): void {
      state.filesTotal = total
      state.phase = 'indexing'
    },
    fileDone(): void {
      state.filesDone++
      tick()
    },
    toEmbed(count: number): void {
      state.chunksToEmbed += count
    },
    embedded(count: number): void {
      state.chunksEmbedded += count
      tick()
    },
  }
}

export type Progress = ReturnType<typeof createProgress>
