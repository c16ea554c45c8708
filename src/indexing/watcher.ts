/**
 * The disk watcher: reports that something changed in the source folders (the sync trigger
 * then rescans). It watches folders only, one `fs.watch` each (an inotify watch on Linux
 * reports the changes of every file in its folder), so an open space costs one watch per
 * folder, bounded by MNEMO_MAX_FOLDERS_PER_AGENT, and none per file. The workspace is
 * watched from its root (so `memory/` created later is seen) with everything but the
 * source folders and their parents left out, so a workspace that also holds a code
 * checkout costs no watches outside its memory. Hidden files and folders (editor swap
 * files, the write API's temp files) are ignored; symlinked folders are not entered.
 */
import type { Dirent, FSWatcher, Stats } from 'node:fs'
import { watch } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

export type Watcher = { close(): Promise<void> }

export type WatchHandlers = {
  onChange: (absPath: string) => void
  onError: (err: unknown) => void
}

export type WatchRoots = {
  /** The workspace's real path. */
  root: string
  /** Workspace-relative source roots (MEMORY.md, memory, extra paths). */
  scanRoots: readonly string[]
  /** The sessions folder's real path, or null. */
  sessions: string | null
}

export type WatcherFactory = (roots: WatchRoots, handlers: WatchHandlers) => Promise<Watcher>

/** Whether a workspace-relative path is neither a source root, below one, nor above one. */
export function isOutsideSources(rel: string, scanRoots: readonly string[]): boolean {
  if (rel === '') return false
  if (rel.split('/').some((s) => s.startsWith('.'))) return true
  return !scanRoots.some((r) => rel === r || rel.startsWith(`${r}/`) || r.startsWith(`${rel}/`))
}

const errno = (err: unknown) => (err as NodeJS.ErrnoException).code
/** Gone, or not a folder any more: nothing to watch there. */
const isGone = (err: unknown) => errno(err) === 'ENOENT' || errno(err) === 'ENOTDIR'
/** A folder mnemo may not read is skipped (the sync reports it), not a watcher failure. */
const isDenied = (err: unknown) => errno(err) === 'EACCES' || errno(err) === 'EPERM'

/**
 * Least time between two looks at one path while its events keep coming, in ms: a folder
 * swapped with a symlink in a loop is looked at about 50 times a second instead of as fast
 * as `lstat` answers (which kept a tenth of the main thread busy under the fault suite).
 */
const RECONCILE_GAP_MS = 20

/** What the watcher asks the file system (a counting fake in tests). */
export type WatcherIo = { lstat: (abs: string) => Promise<Stats> }

/** Starts watching; resolves once every folder is watched, so no later change is missed. */
export const watchSources: WatcherFactory = (roots, handlers) => watchSourcesWith({ lstat: fs.lstat }, roots, handlers)

export async function watchSourcesWith(io: WatcherIo, roots: WatchRoots, handlers: WatchHandlers): Promise<Watcher> {
  const watchers = new Map<string, FSWatcher>()
  let closed = false

  const ignored = (abs: string): boolean => {
    const { sessions } = roots
    if (sessions && (abs === sessions || abs.startsWith(`${sessions}${path.sep}`))) {
      return path
        .relative(sessions, abs)
        .split(path.sep)
        .some((s) => s.startsWith('.'))
    }
    const rel = path.relative(roots.root, abs).split(path.sep).join('/')
    return rel.startsWith('..') || isOutsideSources(rel, roots.scanRoots)
  }

  /** Stops watching `dir` and every folder below it. */
  function unwatch(dir: string): void {
    for (const [watched, w] of watchers) {
      if (watched === dir || watched.startsWith(`${dir}${path.sep}`)) {
        w.close()
        watchers.delete(watched)
      }
    }
  }

  /** Looks at an entry that changed: a new folder is watched (with what it holds), a gone one dropped. */
  async function reconcile(abs: string): Promise<void> {
    const st = await io.lstat(abs).catch((err: unknown) => {
      if (isGone(err)) return null
      throw err
    })
    if (st?.isDirectory()) await watchTree(abs)
    else unwatch(abs)
  }

  /**
   * Paths with a reconcile under way, and whether another event came for them meanwhile.
   * A folder renamed back and forth in a loop sends events far faster than `lstat` answers;
   * one reconcile per path at a time (run again once if events came during it) keeps that
   * to a few calls in flight instead of an unbounded pile of them (measured: 100 MB/s of
   * heap and a blocked event loop).
   */
  const reconciling = new Map<string, boolean>()
  async function reconcileOnce(abs: string): Promise<void> {
    if (reconciling.has(abs)) {
      reconciling.set(abs, true)
      return
    }
    try {
      do {
        reconciling.set(abs, false)
        await reconcile(abs)
        if (reconciling.get(abs) && !closed) await sleep(RECONCILE_GAP_MS, undefined, { ref: false })
      } while (reconciling.get(abs) && !closed)
    } finally {
      reconciling.delete(abs)
    }
  }

  /**
   * Events are handled once per turn of the event loop for each folder and name: a folder
   * renamed in a loop sends hundreds of thousands a second, the same few names over and
   * over, and handling each one alone kept the event loop busy enough to shed requests.
   * `renamed`: one of them was a `rename` (an entry appeared, went or moved), not only a
   * `change` of content, which cannot turn a file into a folder or back.
   */
  type Queued = { dir: string; filename: string | null; renamed: boolean }
  const queued = new Map<string, Queued>()
  function queueEvent(dir: string, filename: string | null, renamed: boolean): void {
    if (closed) return
    if (queued.size === 0) setImmediate(handleQueued)
    const key = `${dir}\0${filename ?? ''}`
    queued.set(key, { dir, filename, renamed: renamed || queued.get(key)?.renamed === true })
  }
  function handleQueued(): void {
    const events = [...queued.values()]
    queued.clear()
    for (const event of events) onEvent(event)
  }

  function onEvent({ dir, filename, renamed }: Queued): void {
    if (closed) return
    // The folder itself moved or was removed (reported under its own name): the sync's
    // check then finds a replaced workspace.
    if (filename === path.basename(dir)) handlers.onChange(dir)
    const abs = filename ? path.join(dir, filename) : dir
    if (ignored(abs)) return
    handlers.onChange(abs)
    // Appends to a day file send a `change` each: only an entry that came or went may be a
    // folder to start or stop watching.
    if (filename && renamed) {
      reconcileOnce(abs).catch((err: unknown) => {
        if (!closed && !isDenied(err)) handlers.onError(err)
      })
    }
  }

  /** Watches `dir` and the folders below it (throws when the system has no watch left). */
  async function watchTree(dir: string): Promise<void> {
    if (closed || watchers.has(dir) || ignored(dir)) return
    let w: FSWatcher
    try {
      w = watch(dir, { persistent: false }, (event, filename) => queueEvent(dir, filename, event === 'rename'))
    } catch (err) {
      if (isGone(err) || isDenied(err)) return
      throw err
    }
    watchers.set(dir, w)
    w.on('error', (err) => {
      unwatch(dir)
      if (!closed && !isGone(err) && !isDenied(err)) handlers.onError(err)
    })
    let entries: Dirent[]
    try {
      entries = await fs.readdir(dir, { withFileTypes: true })
    } catch (err) {
      if (isGone(err) || isDenied(err)) return
      throw err
    }
    for (const entry of entries) {
      if (entry.isDirectory()) await watchTree(path.join(dir, entry.name))
    }
  }

  const close = async () => {
    closed = true
    for (const w of watchers.values()) w.close()
    watchers.clear()
  }
  try {
    await watchTree(roots.root)
    if (roots.sessions) await watchTree(roots.sessions)
  } catch (err) {
    await close()
    throw err
  }
  return { close }
}
