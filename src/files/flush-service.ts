/**
 * POST /flush (SPEC §4): the write-ahead an agent makes before its context is compacted.
 * Notes are appended to the day file `memory/<date>.md` under a heading naming the time,
 * agent and session, in one write under the file's lock (concurrent flushes land whole, in
 * some order), fsynced and indexed before the call returns. Flushes that arrive while the
 * file's lock is held are written together when it is free: one write and one fsync for
 * all of them (each still answered only once its entry is on disk and indexed).
 *
 * With a flushId, a marker line `<!-- mnemo:flush id=… lines=N -->` follows the heading. A
 * retried flush finds it (in the day file, and in the previous day's when no date was
 * given, for a retry across midnight) and appends nothing: the answer names the lines the
 * first attempt wrote. The markers are in the file, so this holds across restarts. A flush
 * whose id is there with other notes under it is 409 FLUSH_ID_CONFLICT (flush-markers.ts).
 *
 * What a flush needs to know about a day file (line count, last bytes, markers) is kept per
 * file and trusted while the file is the same version (size, mtime, change time, inode), so
 * a flush does not read the whole, growing file again. An empty flush appends nothing: it drains the watcher's
 * pending work and returns when the index is current.
 */
import { appError } from '../shared/errors.js'
import type { InFlight } from '../shared/in-flight.js'
import type { KeyedMutex } from '../shared/keyed-mutex.js'
import type { Logger } from '../shared/logger.js'
import { createLru } from '../shared/lru.js'
import { countLines, countNewlines, decodeText } from '../text/lines.js'
import {
  appendToFile,
  readIfExists,
  sameVersion,
  statIfExists,
  withWriteTarget,
  type FileVersion,
  type WritePort,
  type WriteTarget,
} from './file-writer.js'
import { hasFlushMarker, hasNul, REFUSED_MARKER, REFUSED_NUL } from './content-rules.js'
import {
  askedOf,
  askedPrefix,
  contentOf,
  flushIdConflict,
  isSameFlush,
  parseMarkers,
  type AskedFlush,
  type MarkedFlush,
  type Range,
} from './flush-markers.js'
import { MEMORY_DIR } from '../domain/layout.js'
import { formatEntryMeta, type Origin } from '../domain/entry-meta.js'
import type { MakeFolder } from './workspace-fs.js'
import { indexWritten } from './write-service.js'
import type { FileChange } from '../events/space-events.js'

/** Day files whose state is remembered; others are read again when flushed to. */
const DAY_FILE_CACHE = 16

export type FlushRequest = {
  content?: string | undefined
  entries?: string[] | undefined
  date?: string | undefined
  sessionId?: string | undefined
  agentId?: string | undefined
  flushId?: string | undefined
  /** The origin its entry records (provenance.ts); null or absent: none. */
  origin?: Origin | null | undefined
  /** The supersession key its entry records (entry-service.ts supersedes the older one). */
  key?: string | undefined
  /**
   * SHA-256 of the notes the client sent (flush-markers.ts notesSha256), when the entry
   * service left duplicates out of them: the marker keeps it, so a retry is a replay.
   */
  asked?: string | undefined
}

export type FlushResult =
  | { indexed: true; drained: true }
  | { indexed: boolean; path: string; startLine: number; endLine: number; replayed: boolean }

/** Where a flush's entry is (or was found, for a replayed flush). */
type Written = { rel: string; range: Range; replayed: boolean }
/** A flush waiting to be written with the others of its batch; `asked`: what it writes, to compare. */
type Pending = { req: FlushRequest; body: string; asked: AskedFlush; at: Date; done: PromiseWithResolvers<Written> }

/** What flushes know of a day file, valid while it is this version of it. */
type DayFile = {
  version: FileVersion
  newlines: number
  tail: Buffer
  flushes: Map<string, MarkedFlush>
}

export type FlushServiceDeps = {
  /** The workspace folder, named through its held descriptor (held-root.ts). */
  root: string
  maxFileBytes: number
  locks: KeyedMutex
  inFlight: InFlight
  reindexFile: (rel: string) => Promise<void>
  /** The file system calls writes make (tests inject failures). */
  port: WritePort
  /** Creates a folder a write needs (counted against the space's cap: folder-budget.ts). */
  makeFolder: MakeFolder
  /** Syncs everything pending on disk; resolves when the index is current. */
  drain: () => Promise<void>
  log: Logger
  now?: () => number
  /** Told of each append once it is on disk, before it is indexed (GET /events). */
  onChange?: ((change: FileChange) => void) | undefined
}

const pad = (n: number) => String(n).padStart(2, '0')
/** YYYY-MM-DD in the server's local time zone (TZ). */
export const localDate = (d: Date) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`
const localTime = (d: Date) => `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
const dayFile = (date: string) => `${MEMORY_DIR}/${date}.md`

/** The day before YYYY-MM-DD, as YYYY-MM-DD. */
export function previousDate(date: string): string {
  const d = new Date(`${date}T12:00:00Z`)
  d.setUTCDate(d.getUTCDate() - 1)
  return d.toISOString().slice(0, 10)
}

/**
 * The text a flush appends after a file ending in `tail` (its last bytes; null for no
 * file): a blank line, the heading, the marker, the notes; and how many lines the entry has.
 */
export function composeFlush(opts: {
  tail: Uint8Array | null
  body: string
  at: Date
  agentId?: string | undefined
  sessionId?: string | undefined
  flushId?: string | undefined
  /** The day file's date (default: the day of `at`), the entry's observed date. */
  date?: string | undefined
  origin?: Origin | null | undefined
  key?: string | undefined
  /** The marker's `asked` (flush-markers.ts askedPrefix); null or absent: none. */
  askedMark?: string | null | undefined
}): { separator: string; entry: string; entryLines: number } {
  const { tail } = opts
  const last = tail && tail.length > 0 ? tail[tail.length - 1] : undefined
  const beforeLast = tail && tail.length > 1 ? tail[tail.length - 2] : 0x0a
  // A blank line before the heading, as markdown wants; none at the top of a new file.
  const separator = last === undefined ? '' : last !== 0x0a ? '\n\n' : beforeLast === 0x0a ? '' : '\n'
  const parts = [localTime(opts.at)]
  if (opts.agentId) parts.push(`agent ${opts.agentId}`)
  if (opts.sessionId) parts.push(`session ${opts.sessionId}`)
  // Entry metadata when there is something to record: an origin, a key (provenance.ts).
  const meta =
    opts.origin || opts.key
      ? `${formatEntryMeta({
          status: 'active',
          observed: opts.date ?? localDate(opts.at),
          key: opts.key ?? null,
          origin: opts.origin ?? null,
          extra: [],
        })}\n`
      : ''
  const noteLines = countLines(opts.body) + (meta === '' ? 0 : 1)
  const asked = opts.askedMark ? ` asked=${opts.askedMark}` : ''
  const marker = opts.flushId ? `<!-- mnemo:flush id=${opts.flushId} lines=${noteLines}${asked} -->\n` : ''
  const entry = `## ${parts.join(' · ')}\n${marker}${meta}${opts.body}\n`
  return { separator, entry, entryLines: 1 + (opts.flushId ? 1 : 0) + noteLines }
}

/** The notes a flush appends (empty: a flush that only drains pending changes). */
export const notesOf = (req: Pick<FlushRequest, 'content' | 'entries'>): string =>
  (req.content ?? (req.entries ?? []).join('\n')).replace(/\s+$/, '')

/** What no flushed note may hold, whatever the day file holds. */
function checkNotes(body: string): void {
  if (hasFlushMarker(body)) throw appError('VALIDATION_FAILED', REFUSED_MARKER)
  if (hasNul(body)) throw appError('VALIDATION_FAILED', REFUSED_NUL)
}

const dayFileTooLarge = (maxFileBytes: number) =>
  appError('PAYLOAD_TOO_LARGE', `The day file would be larger than MNEMO_MAX_FILE_BYTES (${maxFileBytes})`)

/**
 * Throws what a flush would be refused with when its day file does not exist yet: checked
 * before a flush creates its agent, so a refused flush creates nothing.
 */
export function checkNewDayFileFlush(req: FlushRequest, maxFileBytes: number): void {
  const body = notesOf(req)
  checkNotes(body)
  // The heading's time has a fixed width: any moment gives the entry's size.
  const { entry } = composeFlush({ ...req, tail: null, body, at: new Date(0) })
  if (Buffer.byteLength(entry) > maxFileBytes) throw dayFileTooLarge(maxFileBytes)
}

export function createFlushService(deps: FlushServiceDeps) {
  const now = deps.now ?? Date.now
  const dayFiles = createLru<string, DayFile>(DAY_FILE_CACHE)

  /** Runs `fn` on the day file `rel` (its folder created when missing). */
  const onDayFile = <T>(rel: string, fn: (target: WriteTarget) => Promise<T>): Promise<T> =>
    withWriteTarget(deps.root, rel, deps.makeFolder, (target) => fn(target as WriteTarget))

  /** Reads what flushes need of a file (from the cache while it is unchanged); null: none. */
  async function load(rel: string, target: WriteTarget): Promise<DayFile | null> {
    const st = await statIfExists(target)
    if (!st) return null
    const cached = dayFiles.get(rel)
    if (cached && sameVersion(cached.version, st)) return cached
    const bytes = await readIfExists(target)
    if (!bytes) return null
    // The version from before the read: a write during it changes it and forces a re-read.
    const state = {
      version: { ...st, sizeBytes: bytes.length },
      newlines: countNewlines(bytes),
      tail: Buffer.from(bytes.subarray(-2)),
      flushes: parseMarkers(decodeText(bytes)),
    }
    dayFiles.set(rel, state)
    return state
  }

  /** Where `entry` landed in `bytes` (the file) when another program appended at the same time. */
  function locate(bytes: Buffer, entry: string): Range {
    const at = bytes.lastIndexOf(Buffer.from(entry, 'utf8'))
    const startLine = countNewlines(bytes.subarray(0, at)) + 1
    return { startLine, endLine: startLine + countLines(entry) - 1 }
  }

  /**
   * Flushes waiting for the lock of their day file, by the files they look in: they are
   * written together once it is theirs (group commit). A flush holds the lock through its
   * fsync, which under load took most of a flush's time; now the flushes queued behind it
   * share the next write and fsync instead of taking one each.
   */
  const waiting = new Map<string, Pending[]>()

  /**
   * Answers the flushes of `batch` whose id is among `marked` (the markers of the files
   * looked in) or earlier in the batch: replayed when they ask for what that flush wrote,
   * FLUSH_ID_CONFLICT when not. Returns the others, to be written.
   */
  function unreplayed(
    batch: readonly Pending[],
    marked: readonly { rel: string; flushes?: Map<string, MarkedFlush> }[],
  ) {
    const fresh: Pending[] = []
    // The first of this batch's flushes with each id: a second with the same id replays it.
    const first = new Map<string, Pending>()
    for (const p of batch) {
      const flushId = p.req.flushId
      const found = flushId ? marked.find((m) => m.flushes?.has(flushId)) : undefined
      const earlier = flushId && found?.flushes?.get(flushId)
      if (flushId && found && earlier) {
        const range = { startLine: earlier.startLine, endLine: earlier.endLine }
        if (isSameFlush(earlier, p.asked)) p.done.resolve({ rel: found.rel, range, replayed: true })
        else p.done.reject(flushIdConflict(flushId, found.rel, earlier))
      } else if (flushId && first.has(flushId)) {
        const original = first.get(flushId) as Pending
        const same = isSameFlush(contentOf(original.asked), p.asked)
        original.done.promise.then(
          (w) =>
            same
              ? p.done.resolve({ rel: w.rel, range: w.range, replayed: true })
              : p.done.reject(flushIdConflict(flushId, w.rel, w.range)),
          (err: unknown) => p.done.reject(err),
        )
      } else {
        if (flushId) first.set(flushId, p)
        fresh.push(p)
      }
    }
    return fresh
  }

  /** Writes the flushes of `batch` to `rel` in one append and one fsync (lock held). */
  async function writeBatch(rel: string, lookIn: readonly string[], batch: Pending[]): Promise<void> {
    // The previous day's file, for a retry across midnight; the day file is read below.
    const elsewhere = await Promise.all(
      lookIn
        .filter((other) => other !== rel)
        .map(async (other) => ({ rel: other, flushes: (await onDayFile(other, (t) => load(other, t)))?.flushes })),
    )
    await onDayFile(rel, async (target) => {
      const before = await load(rel, target)
      const fresh = unreplayed(batch, [{ rel, ...(before && { flushes: before.flushes }) }, ...elsewhere])
      if (fresh.length === 0) return
      let tail = before?.tail ?? null
      let sizeBytes = before?.version.sizeBytes ?? 0
      let newlines = before?.newlines ?? 0
      const parts: Buffer[] = []
      const written: { p: Pending; entry: string; range: Range }[] = []
      for (const p of fresh) {
        const composed = composeFlush({ ...p.req, tail, body: p.body, at: p.at, askedMark: askedPrefix(p.asked) })
        const added = Buffer.from(composed.separator + composed.entry, 'utf8')
        if (sizeBytes + added.length > deps.maxFileBytes) {
          p.done.reject(dayFileTooLarge(deps.maxFileBytes))
          continue
        }
        parts.push(added)
        sizeBytes += added.length
        newlines += countNewlines(added)
        tail = Buffer.from(added.subarray(-2))
        written.push({
          p,
          entry: composed.entry,
          range: { startLine: newlines - composed.entryLines + 1, endLine: newlines },
        })
      }
      if (written.length === 0) return
      const after = await appendToFile(target, Buffer.concat(parts), deps.port)
      if (after.sizeBytes === sizeBytes) {
        const flushes = before?.flushes ?? new Map<string, MarkedFlush>()
        for (const w of written) {
          if (w.p.req.flushId) flushes.set(w.p.req.flushId, { ...w.range, ...contentOf(w.p.asked) })
        }
        const { created: _, ...version } = after
        dayFiles.set(rel, { version, newlines, tail: tail as Buffer, flushes })
      } else {
        // Another program appended meanwhile: find the entries instead of assuming their place.
        const bytes = (await readIfExists(target)) ?? Buffer.alloc(0)
        for (const w of written) w.range = locate(bytes, w.entry)
      }
      deps.onChange?.({ kind: 'written', path: rel, sizeBytes: after.sizeBytes })
      for (const w of written) w.p.done.resolve({ rel, range: w.range, replayed: false })
    })
  }

  async function append(req: FlushRequest, body: string): Promise<FlushResult> {
    const at = new Date(now())
    const date = req.date ?? localDate(at)
    const rel = dayFile(date)
    // A retry after midnight goes to the next day file: look in the previous one too.
    const lookIn = req.flushId && !req.date ? [rel, dayFile(previousDate(date))] : [rel]
    const key = lookIn.join('\n')
    const pending: Pending = { req, body, asked: askedOf(req, body), at, done: Promise.withResolvers<Written>() }
    let batch = waiting.get(key)
    if (!batch) {
      const mine: Pending[] = []
      batch = mine
      waiting.set(key, mine)
      let began = false
      void deps.locks
        .runAll(lookIn, () => {
          // Flushes arriving from now on wait for the next turn of the lock.
          began = true
          waiting.delete(key)
          return writeBatch(rel, lookIn, mine)
        })
        .catch(async (err: unknown) => {
          // A lock that could not be taken (shared with other replicas, in a database that
          // went away) fails this batch whole: later flushes must start one of their own,
          // not join one that will never run.
          if (waiting.get(key) === mine) waiting.delete(key)
          // A failed append is undone (file-writer.ts), but a sync may have read the day file
          // half written meanwhile: indexed as it is now, the index shows nothing of it.
          if (began) await indexWritten(deps, rel)
          for (const p of mine) p.done.reject(err)
        })
    }
    batch.push(pending)
    const outcome = await pending.done.promise
    const indexed = await indexWritten(deps, outcome.rel)
    return { indexed, path: outcome.rel, ...outcome.range, replayed: outcome.replayed }
  }

  function flush(req: FlushRequest): Promise<FlushResult> {
    const body = notesOf(req)
    checkNotes(body)
    return deps.inFlight.run(async () => {
      if (body.trim() !== '') return append(req, body)
      await deps.drain()
      return { indexed: true, drained: true }
    })
  }

  return { flush }
}

export type FlushService = ReturnType<typeof createFlushService>
