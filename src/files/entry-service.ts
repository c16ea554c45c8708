/**
 * Writes that keep memory right (SPEC §11, issue 31), on one space: entries appended and
 * flushed with their origin, no duplicates, a key that supersedes the older entry by itself,
 * supersede in place, and forgetting a session. Built on the write and flush services (which
 * lock a file, write it atomically and index it before they answer) and on the index's
 * lookups by entry hash and key; nothing here asks a model.
 *
 * A duplicate is an active entry of the same space whose text is the same once whitespace is
 * folded (entry-text.ts). The lookup and the write are not one step: two identical writes at
 * the same moment may both land (the next one finds them).
 */
import { formatEntryMeta, parseEntryMeta, type EntryMeta, type Origin } from '../domain/entry-meta.js'
import { randomUUID } from 'node:crypto'
import { appError } from '../shared/errors.js'
import type { EntryLocation, EntryQuery } from '../store/port.js'
import type { EntryChange } from '../events/space-events.js'
import { countLinesIn, decodeText, splitLines } from '../text/lines.js'
import { sha256 } from '../domain/hashing.js'
import {
  entryAt,
  entryTextHash,
  overlaps,
  removeSession,
  scanEntries,
  supersedeInText,
  type TextEntry,
} from './entry-text.js'
import { createEntryLookup, type Location } from './entry-lookup.js'
import { notesSha256 } from './flush-markers.js'
import { localDate, notesOf, type FlushRequest, type FlushResult, type FlushService } from './flush-service.js'
import type { Precondition } from './preconditions.js'
import { checkOwnerClaims, resolveOrigin, type Writer } from './provenance.js'
import { checkAppendContent, type WriteResult, type WriteService } from './write-service.js'

export type { Location }

/** What a write asks of the entry it makes: an origin (provenance.ts) and a supersession key. */
export type EntryFields = { origin?: Origin | undefined; key?: string | undefined }

/** An append, as it landed or as the duplicate it was not written for. */
export type EntryWriteResult = WriteResult & {
  duplicate?: boolean
  skipped?: Location[]
  superseded?: Location[]
}

/** Notes not written again, with where they are (`entry`: their index in `entries`). */
export type Skipped = Location & { entry?: number }

export type EntryFlushResult =
  | (FlushResult & { skipped?: Skipped[]; superseded?: Location[] })
  | { indexed: true; duplicate: true; skipped: Skipped[] }

export type SupersedeRequest = {
  /** The old entry: a file and lines in it, or (alone, or with path) its key. */
  path?: string | undefined
  startLine?: number | undefined
  endLine?: number | undefined
  key?: string | undefined
  /** The new entry's text. */
  content: string
  origin?: Origin | undefined
}

export type SupersedeResult = {
  path: string
  sha256: string
  /** The new entry, active, observed today. */
  entry: Location
  /** Entries marked superseded: the old one, and other active ones with the same key. */
  superseded: Location[]
  indexed: boolean
}

export type ForgetResult = { sessionId: string; removed: (Location & { flushId: string | null })[]; files: number }

export type EntryServiceDeps = {
  writes: Pick<WriteService, 'append' | 'edit' | 'verify'>
  flush: Pick<FlushService, 'flush'>
  findEntries: (q: EntryQuery) => Promise<EntryLocation[]>
  /** A memory file's bytes; null when it is missing or cannot be read. */
  readFile: (rel: string) => Promise<Buffer | null>
  /** The day files of the space (memory/YYYY-MM-DD.md), where flushes are. */
  dayFiles: () => Promise<string[]>
  now?: () => number
  /** Told of each entry superseded and each flush entry forgotten (GET /events). */
  onEntry?: ((change: EntryChange) => void) | undefined
  /**
   * Runs `fn` holding the space's lock on a supersession key (across processes that share
   * the engine): writes with one key take turns, so each retires the one before it and
   * exactly one stays active. Absent: no lock (one writer).
   */
  lockKey?: (<T>(key: string, fn: () => Promise<T>) => Promise<T>) | undefined
}

const ANY: Precondition = { ifMatch: null, ifNoneMatch: false }

/** Whether the first line of `content` that is not blank is a metadata comment of its own. */
const opensWithMeta = (content: string) => {
  const first = splitLines(content).find((line) => line.trim() !== '')
  return first !== undefined && parseEntryMeta(first).kind === 'meta'
}

export function createEntryService(deps: EntryServiceDeps) {
  const readText = async (rel: string) => {
    const bytes = await deps.readFile(rel)
    return bytes && decodeText(bytes)
  }
  const today = () => localDate(new Date((deps.now ?? Date.now)()))
  const metaOf = (origin: Origin | null, key: string | null): EntryMeta => ({
    status: 'active',
    observed: today(),
    key,
    origin,
    extra: [],
  })

  const { duplicatesOf, retire } = createEntryLookup({
    findEntries: deps.findEntries,
    readText,
    edit: deps.writes.edit,
    onEntry: deps.onEntry,
  })

  /**
   * Appends to `rel`. With an origin to record (an agent token always has one) or a key, the
   * content is an entry under a metadata comment, observed today: not written when an active
   * entry of the space holds the same text, and superseding the active entry with its key.
   * Content that opens with a metadata comment of its own is written as it is.
   */
  async function append(
    rel: string,
    content: string,
    pre: Precondition,
    writer: Writer,
    fields: EntryFields,
  ): Promise<EntryWriteResult> {
    const origin = resolveOrigin(writer, fields.origin)
    if (opensWithMeta(content)) {
      if (fields.origin !== undefined || fields.key !== undefined) {
        throw appError(
          'VALIDATION_FAILED',
          'The content opens with a metadata comment of its own: give origin and key there or in the fields, not both',
        )
      }
      return deps.writes.append(rel, content, pre, writer)
    }
    if (origin === null && fields.key === undefined) return deps.writes.append(rel, content, pre, writer)
    checkAppendContent(content, Number.POSITIVE_INFINITY)
    checkOwnerClaims(writer, content, null)
    const key = fields.key ?? null
    return withKey(key, async () => {
      const [duplicate] = await duplicatesOf([content], { key, origin })
      if (duplicate) {
        // Answered only for a write that could have been made: the path and If-Match hold.
        await deps.writes.verify(rel, pre)
        return duplicateAnswer(duplicate)
      }
      const meta = formatEntryMeta(metaOf(origin, key))
      const written = await deps.writes.append(rel, `${meta}\n${content}`, pre, writer)
      const superseded = key === null ? [] : await retire(key, entryTextHash(content))
      return superseded.length > 0 ? { ...written, superseded } : written
    })
  }

  /** Runs `fn` holding the lock of `key` (none without a key). */
  const withKey = <T>(key: string | null, fn: () => Promise<T>): Promise<T> =>
    key === null || !deps.lockKey ? fn() : deps.lockKey(key, fn)

  /** The answer to an append not made: the file that holds the entry already, and where. */
  async function duplicateAnswer(at: Location): Promise<EntryWriteResult> {
    const bytes = (await deps.readFile(at.path)) ?? Buffer.alloc(0)
    return {
      path: at.path,
      sha256: sha256(bytes),
      sizeBytes: bytes.length,
      totalLines: countLinesIn(bytes),
      startLine: at.startLine,
      endLine: at.endLine,
      created: false,
      indexed: true,
      duplicate: true,
      skipped: [at],
    }
  }

  /**
   * A flush (flush-service.ts) whose notes are an entry with the writer's origin and the
   * key asked for: notes already an active entry of the space are not written again (each of
   * `entries` on its own, or the whole), and a flush that is all duplicates writes nothing.
   */
  async function flush(req: FlushRequest, writer: Writer): Promise<EntryFlushResult> {
    const origin = resolveOrigin(writer, req.origin ?? undefined)
    const whole = notesOf(req)
    if (whole.trim() === '') return deps.flush.flush(req)
    checkOwnerClaims(writer, whole, null)
    const key = req.key ?? null
    // A flush with a session always has a marker, so forgetting the session removes exactly
    // the lines it wrote (entry-text.ts); its id is the service's own when the client gave none.
    const flushId = req.flushId ?? (req.sessionId !== undefined ? `auto.${randomUUID()}` : undefined)
    return withKey(key, async () => {
      const skipped: Skipped[] = []
      let entries = req.entries
      const each = entries && entries.length > 1 ? entries : []
      const [all, ...found] = await duplicatesOf([whole, ...each], { key, origin }, req.flushId)
      if (all) skipped.push(all)
      else if (entries && each.length > 0) {
        entries = entries.filter((_, i) => {
          const at = found[i]
          if (at) skipped.push({ ...at, entry: i })
          return !at
        })
      }
      if (all || entries?.length === 0) return { indexed: true as const, duplicate: true as const, skipped }
      const result = await deps.flush.flush({
        ...req,
        ...(entries && { entries }),
        ...(flushId !== undefined && { flushId, asked: notesSha256(whole) }),
        origin,
        ...(key !== null && { key }),
      })
      if (!('path' in result)) return result
      const written = notesOf({ ...req, ...(entries && { entries }) })
      const superseded = key === null || result.replayed ? [] : await retire(key, entryTextHash(written))
      return {
        ...result,
        ...(skipped.length > 0 && { skipped }),
        ...(superseded.length > 0 && { superseded }),
      }
    })
  }

  /** The old entry in `text` the request names by lines, or the active one with its key. */
  function oldEntry(text: string, req: SupersedeRequest): TextEntry | Location {
    const { entries } = scanEntries(text)
    if (req.startLine === undefined) {
      const keyed = entries.filter((e) => e.meta !== null && e.meta.key === req.key && e.meta.status === 'active')
      const last = keyed[keyed.length - 1]
      if (!last) throw appError('ENTRY_NOT_FOUND', `No active entry with key "${req.key}"`)
      return last
    }
    const startLine = req.startLine
    const endLine = req.endLine ?? startLine
    const lines = splitLines(text)
    if (endLine < startLine || endLine > lines.length) {
      throw appError('ENTRY_NOT_FOUND', `Lines ${startLine}–${endLine} are not in the file (${lines.length} lines)`)
    }
    const entry = entryAt(entries, startLine, endLine)
    if (entry) {
      if (entry.meta?.status === 'superseded') {
        throw appError('PRECONDITION_FAILED', 'That entry is superseded already: nothing was written', {
          details: { startLine: entry.startLine, endLine: entry.endLine },
        })
      }
      return entry
    }
    const plain = lines.slice(startLine - 1, endLine)
    const isText = (line: string) =>
      line.trim() !== '' && parseEntryMeta(line).kind !== 'meta' && !/^ {0,3}#/.test(line)
    if (entries.some((e) => overlaps(e, { startLine, endLine })) || !plain.every(isText)) {
      throw appError(
        'ENTRY_NOT_FOUND',
        `Lines ${startLine}–${endLine} are not one entry, nor lines of text outside entries`,
      )
    }
    return { path: '', startLine, endLine }
  }

  /**
   * Replaces a fact: the old entry (by lines, or by key) is marked superseded in place and
   * the new one written right after it, active and observed today, in one atomic write of
   * that file under `pre` (If-Match). Other active entries with the same key are superseded
   * after it. The new entry keeps the old one's key unless the request names one.
   */
  async function supersede(req: SupersedeRequest, pre: Precondition, writer: Writer): Promise<SupersedeResult> {
    const origin = resolveOrigin(writer, req.origin)
    checkAppendContent(req.content, Number.POSITIVE_INFINITY)
    checkOwnerClaims(writer, req.content, null)
    if (req.content.trim() === '') throw appError('VALIDATION_FAILED', 'The new entry has no text')
    if (req.startLine === undefined && req.key === undefined) {
      throw appError('VALIDATION_FAILED', 'Name the old entry: path and startLine, or its key')
    }
    if (req.startLine !== undefined && req.path === undefined) {
      throw appError('VALIDATION_FAILED', 'startLine needs the path of the file it is in')
    }
    // The key the new entry will have: the request's, or (by lines) the old entry's, read
    // first to take its lock; the write reads it again under the file's lock.
    const lockedKey = req.key ?? (req.path !== undefined ? await keyAt(req.path, req) : null)
    return withKey(lockedKey, () => supersedeLocked(req, pre, origin))
  }

  /** The key of the entry at the request's lines in `path` (null: none, or no such file yet). */
  async function keyAt(path: string, req: SupersedeRequest): Promise<string | null> {
    const text = await readText(path).catch(() => null)
    if (text === null || req.startLine === undefined) return null
    const entry = entryAt(scanEntries(text).entries, req.startLine, req.endLine ?? req.startLine)
    return entry?.meta?.key ?? null
  }

  async function supersedeLocked(req: SupersedeRequest, pre: Precondition, origin: Origin | null) {
    let path = req.path
    if (path === undefined || req.startLine === undefined) {
      const found = (await deps.findEntries({ key: req.key as string })).filter(
        (l) => path === undefined || l.path === path,
      )
      const last = found[found.length - 1]
      if (!last) throw appError('ENTRY_NOT_FOUND', `No active entry with key "${req.key}"`)
      path = last.path
    }
    const done = await deps.writes.edit(path, pre, (text) => {
      const old = oldEntry(text, req)
      const key = req.key ?? ('meta' in old ? (old.meta?.key ?? null) : null)
      const out = supersedeInText(text, old, req.content, metaOf(origin, key))
      return { text: out.text, result: { out, key } }
    })
    if (!done) throw appError('ENTRY_NOT_FOUND')
    const { out, key } = done.result
    deps.onEntry?.({ kind: 'superseded', path: done.path, ...out.old })
    const entry = { path: done.path, ...out.entry }
    const others = key === null ? [] : await retire(key, entryTextHash(req.content))
    // The old entry's lines as the file now holds them (others were retired after the write).
    return {
      path: done.path,
      sha256: done.sha256,
      entry,
      superseded: [{ path: done.path, ...out.old }, ...others],
      indexed: done.indexed,
    }
  }

  /**
   * Removes every flush of session `sessionId` from the space's day files, each file in one
   * atomic write; where they were (their lines before the removal).
   */
  async function forget(sessionId: string): Promise<ForgetResult> {
    const removed: ForgetResult['removed'] = []
    let files = 0
    // Day files changed on disk and not indexed yet are listed too: an empty flush syncs them.
    await deps.flush.flush({})
    const label = ` · session ${sessionId}`
    for (const path of await deps.dayFiles()) {
      const text = await readText(path)
      if (text === null || !text.includes(label)) continue
      const done = await deps.writes.edit(path, ANY, (current) => {
        const out = removeSession(current, sessionId)
        return out && { text: out.text, result: out.removed }
      })
      if (!done) continue
      files++
      for (const r of done.result) {
        removed.push({ path, ...r })
        deps.onEntry?.({ kind: 'forgotten', path, startLine: r.startLine, endLine: r.endLine, sessionId })
      }
    }
    return { sessionId, removed, files }
  }

  return { append, flush, supersede, forget }
}

export type EntryService = ReturnType<typeof createEntryService>
