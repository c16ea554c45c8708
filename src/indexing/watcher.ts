/**
 * chokidar adapter: watches the source folders and reports that something changed. The
 * workspace is watched from its root (so `memory/` created later is seen) with everything
 * but the source paths and their parent folders ignored, so a workspace that also holds a
 * code checkout costs no watches outside its memory. Hidden files (editor swap files, the
 * write API's temp files) are ignored too.
 */
import path from 'node:path'
import { watch } from 'chokidar'

export type Watcher = { close(): Promise<void> }

export type WatchHandlers = {
  onChange: (absPath: string) => void
  onError: (err: unknown) => void
}

export type WatchTargets = {
  /** The workspace's real path. */
  root: string
  /** Workspace-relative source roots (MEMORY.md, memory, extra paths). */
  scanRoots: readonly string[]
  /** The sessions folder's real path, or null. */
  sessions: string | null
}

export type WatcherFactory = (targets: WatchTargets, handlers: WatchHandlers) => Promise<Watcher>

/** Whether a workspace-relative path is neither a source root, below one, nor above one. */
export function isOutsideSources(rel: string, scanRoots: readonly string[]): boolean {
  if (rel === '') return false
  if (rel.split('/').some((s) => s.startsWith('.'))) return true
  return !scanRoots.some((r) => rel === r || rel.startsWith(`${r}/`) || r.startsWith(`${rel}/`))
}

/** Starts chokidar; resolves once its initial scan is done, so no later change is missed. */
export const watchSources: WatcherFactory = (targets, handlers) => {
  const ignored = (abs: string): boolean => {
    if (targets.sessions && (abs === targets.sessions || abs.startsWith(`${targets.sessions}${path.sep}`))) {
      return path
        .relative(targets.sessions, abs)
        .split(path.sep)
        .some((s) => s.startsWith('.'))
    }
    const rel = path.relative(targets.root, abs).split(path.sep).join('/')
    return isOutsideSources(rel, targets.scanRoots)
  }
  const watcher = watch([targets.root, ...(targets.sessions ? [targets.sessions] : [])], {
    ignoreInitial: true,
    followSymlinks: false,
    // A folder mnemo may not read is skipped (the sync reports it), not a watcher failure.
    ignorePermissionErrors: true,
    ignored,
  })
  watcher.on('all', (_event, changed) => handlers.onChange(changed))
  watcher.on('error', handlers.onError)
  return new Promise((resolve, reject) => {
    watcher.once('ready', () => resolve({ close: () => watcher.close() }))
    watcher.once('error', (err) => {
      void watcher.close()
      reject(err instanceof Error ? err : new Error(String(err)))
    })
  })
}
