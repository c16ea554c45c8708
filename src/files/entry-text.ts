/**
 * Entries of a memory file's text (SPEC §11, domain/entry-meta.ts), and the edits that keep
 * memory right: superseding an entry in place, retiring a key, removing a session's flushes.
 * Pure functions of the text; the services read, lock and write (entry-service.ts).
 *
 * An entry opens at a metadata comment and runs to the next metadata comment or heading; a
 * flush entry (`## HH:MM:SS · agent A · session S`, its marker, its notes) is one too, its
 * notes an entry up to the first metadata comment under it. Text outside both is no entry.
 * Comments and headings inside code fences are text, as the chunker reads them.
 */
import { formatEntryMeta, parseEntryMeta, type EntryMeta } from '../domain/entry-meta.js'
import { sha256 } from '../domain/hashing.js'
import { FENCE, fenceAfter } from '../text/fences.js'
import { splitLines } from '../text/lines.js'
import { FLUSH_MARKER } from './content-rules.js'

/** A flush's lines in a day file: heading to last note. */
export type FlushBlock = {
  startLine: number
  endLine: number
  agent: string | null
  session: string | null
  flushId: string | null
  /** The marker line (null: a flush without flushId) and how many lines it says follow it. */
  markerLine: number | null
  markerLines: number
  /** The marker's `asked` (flush-markers.ts), kept when the marker is written again. */
  asked: string | null
}

export type TextEntry = {
  /** Its metadata comment, or the flush heading for a flush's notes. 1-based. */
  startLine: number
  /** Its last line that is not blank. */
  endLine: number
  metaLine: number | null
  meta: EntryMeta | null
  /** The flush it is part of, if any. */
  flush: FlushBlock | null
  /** Its text: the lines after the comment (or heading and marker), blank ends trimmed. */
  body: string
  /** SHA-256 of the body with whitespace runs made one space (entryTextHash); null for an empty body. */
  hash: string | null
}

const HEADING = /^ {0,3}(#{1,6})[ \t]+/
/** The heading flush-service.ts writes. */
const FLUSH_HEADING = /^## \d{2}:\d{2}:\d{2}(?: · agent (.+?))?(?: · session (.+))?$/

/** Text compared for duplicates: whitespace runs as one space, ends trimmed. */
export const normalizeEntryText = (text: string): string => text.replace(/\s+/g, ' ').trim()

/** The hash duplicates are found by (indexed per chunk as entry_hash); null for blank text. */
export function entryTextHash(text: string): string | null {
  const normal = normalizeEntryText(text)
  return normal === '' ? null : sha256(normal)
}

/**
 * The entries and flushes of `text`, in order. `restart`: the last line at which every entry
 * and flush before it is closed and nothing read before it is carried on (a heading of level
 * 1 or 2 outside a code fence), so scanning the text from that line on finds the same entries
 * from there (their lines counted from it); null when there is none.
 */
export function scanEntries(text: string): { entries: TextEntry[]; flushes: FlushBlock[]; restart: number | null } {
  const lines = splitLines(text)
  const entries: TextEntry[] = []
  const flushes: FlushBlock[] = []
  let open: {
    startLine: number
    metaLine: number | null
    meta: EntryMeta | null
    flush: FlushBlock | null
    body: { n: number; t: string }[]
  } | null = null
  let flush: FlushBlock | null = null
  /** An unmarked flush has had a note line: a blank line or a comment now ends it. */
  let unmarkedNotes = false
  let fence: string | null = null
  let restart: number | null = null

  const close = () => {
    if (!open) return
    const body = open.body
    while (body.length > 0 && (body[body.length - 1] as { t: string }).t.trim() === '') body.pop()
    while (body.length > 0 && (body[0] as { t: string }).t.trim() === '') body.shift()
    const text = body.map((b) => b.t).join('\n')
    // A flush's notes before its first metadata comment: an entry only when there are some.
    if (open.meta !== null || body.length > 0) {
      entries.push({
        startLine: open.startLine,
        endLine: body.length > 0 ? (body[body.length - 1] as { n: number }).n : (open.metaLine ?? open.startLine),
        metaLine: open.metaLine,
        meta: open.meta,
        flush: open.flush,
        body: text,
        hash: entryTextHash(text),
      })
    }
    open = null
  }

  /**
   * Ends an unmarked flush before line `n` (its last line: the last one not blank before).
   * Without a marker nothing says how many notes it wrote: it ends at the first blank line or
   * metadata comment after a note, or at a heading, so that a removal (forget) never takes a
   * later write's lines for its own; flushes with a session always write a marker now.
   */
  const endFlush = (n: number) => {
    if (!flush) return
    if (flush.markerLine === null) {
      let end = n - 1
      while (end > flush.startLine && (lines[end - 1] as string).trim() === '') end--
      flush.endLine = end
    }
    flush = null
    unmarkedNotes = false
  }

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string
    const n = i + 1
    if (flush && flush.markerLine !== null && n > flush.endLine) {
      close()
      flush = null
    }
    if (fence === null) {
      const heading = HEADING.exec(line)
      if (heading) {
        close()
        const level = (heading[1] as string).length
        const flushHeading = FLUSH_HEADING.exec(line)
        // A flush heading is of level 2.
        if (level <= 2) {
          endFlush(n)
          restart = n
        }
        if (flushHeading) {
          const marker = FLUSH_MARKER.exec(lines[i + 1] ?? '')
          const markerLines = marker ? Number(marker[2]) : 0
          flush = {
            startLine: n,
            endLine: marker ? Math.min(n + 1 + markerLines, lines.length) : lines.length,
            agent: flushHeading[1] ?? null,
            session: flushHeading[2] ?? null,
            flushId: marker ? (marker[1] as string) : null,
            markerLine: marker ? n + 1 : null,
            markerLines,
            asked: marker?.[3] ?? null,
          }
          flushes.push(flush)
          open = { startLine: n, metaLine: null, meta: null, flush, body: [] }
          if (marker) i++
        }
        continue
      }
      if (line.includes('<!--')) {
        const parsed = parseEntryMeta(line)
        if (parsed.kind === 'meta') {
          close()
          if (unmarkedNotes) endFlush(n)
          open = { startLine: n, metaLine: n, meta: parsed.meta, flush, body: [] }
          continue
        }
      }
      if (flush?.markerLine === null) {
        if (line.trim() !== '') unmarkedNotes = true
        else if (unmarkedNotes) endFlush(n)
      }
    }
    fence = fenceAfter(fence, line, FENCE.exec(line)?.[1])
    open?.body.push({ n, t: line })
  }
  close()
  endFlush(lines.length + 1)
  return { entries, flushes, restart }
}

/** Whether an entry's lines and `loc`'s meet (an entry of its comment alone spans that line). */
export const overlaps = (e: { startLine: number; endLine: number }, loc: { startLine: number; endLine: number }) =>
  e.startLine <= loc.endLine && loc.startLine <= Math.max(e.endLine, e.startLine)

/** The entry whose lines hold `startLine`..`endLine`; null when they are in none or span two. */
export function entryAt(entries: readonly TextEntry[], startLine: number, endLine: number): TextEntry | null {
  return entries.find((e) => e.startLine <= startLine && endLine <= Math.max(e.endLine, e.startLine)) ?? null
}

/** Lines of `text`, and whether it ended with a newline (kept when edited). */
/** Lines of `text`, whether it ended with a newline, and its line break (CRLF files stay CRLF). */
const linesOf = (text: string) => ({
  lines: splitLines(text),
  ended: text.endsWith('\n') || text === '',
  eol: text.includes('\r\n') ? '\r\n' : '\n',
})
const joinLines = ({ lines, ended, eol }: { lines: readonly string[]; ended: boolean; eol: string }) =>
  lines.join(eol) + (ended && lines.length > 0 ? eol : '')

/** `flush`'s marker saying `added` more lines follow it (lines inserted inside the flush). */
function growMarker(lines: string[], flush: FlushBlock | null, added: number): void {
  if (!flush || flush.markerLine === null || added === 0) return
  const asked = flush.asked === null ? '' : ` asked=${flush.asked}`
  lines[flush.markerLine - 1] = `<!-- mnemo:flush id=${flush.flushId} lines=${flush.markerLines + added}${asked} -->`
}

export type Superseded = {
  text: string
  /** The old entry's lines after the edit, and the new entry's. */
  old: { startLine: number; endLine: number }
  entry: { startLine: number; endLine: number }
}

/**
 * `text` with the entry at `old` marked superseded and `body` written right after it as a
 * new entry under `meta`. `old` is an entry of scanEntries(text), or plain lines in no
 * entry: those get a comment of their own, and the lines after them that belong to no entry
 * are closed off by an empty active comment, so the new entry takes nothing that was not
 * its own. Line counts under a flush marker grow with what is inserted inside its flush.
 */
export function supersedeInText(
  text: string,
  old: TextEntry | { startLine: number; endLine: number },
  body: string,
  meta: EntryMeta,
): Superseded {
  const { lines, ended, eol } = linesOf(text)
  const entry = 'body' in old ? old : null
  // The flush the old lines are in: the new entry goes after it, so the notes under its
  // marker stay what the flush wrote (a retried flushId still replays).
  const flush =
    entry?.flush ??
    scanEntries(text).flushes.find((f) => f.startLine < old.startLine && old.endLine <= f.endLine) ??
    null
  const newLines = ['', formatEntryMeta(meta), ...splitLines(body.replace(/\s+$/, ''))]
  let oldStart = old.startLine
  let oldEnd = old.endLine
  let insertAt = Math.max(oldEnd, flush?.endLine ?? 0) // lines kept before the new entry
  let grown = 0
  if (entry?.metaLine != null) {
    lines[entry.metaLine - 1] = formatEntryMeta({ ...(entry.meta as EntryMeta), status: 'superseded' })
  } else {
    // The notes of a flush (after its heading and marker), or plain lines: a comment opens them.
    const at = entry?.flush ? (entry.flush.markerLine ?? entry.flush.startLine) : old.startLine - 1
    lines.splice(at, 0, formatEntryMeta({ status: 'superseded', observed: null, key: null, origin: null, extra: [] }))
    grown = 1
    oldStart = at + 1
    oldEnd += 1
    insertAt += 1
  }
  // Text after the new entry that belongs to no entry would become part of it: a comment of
  // its own (active, nothing else) keeps it apart.
  const after = lines.slice(insertAt).find((line) => line.trim() !== '')
  const closes = after !== undefined && !HEADING.test(after) && parseEntryMeta(after).kind !== 'meta'
  lines.splice(
    insertAt,
    0,
    ...newLines,
    ...(closes ? ['', formatEntryMeta({ status: 'active', observed: null, key: null, origin: null, extra: [] })] : []),
  )
  growMarker(lines, flush, grown)
  return {
    text: joinLines({ lines, ended, eol }),
    old: { startLine: oldStart, endLine: oldEnd },
    entry: { startLine: insertAt + 2, endLine: insertAt + newLines.length },
  }
}

/**
 * `text` with every active entry keyed `key` marked superseded, but those `keep` says to keep
 * (the entry just written, told by its text); null when there is none.
 */
export function retireKey(
  text: string,
  key: string,
  keep: (entry: TextEntry) => boolean = () => false,
): { text: string; retired: { startLine: number; endLine: number }[] } | null {
  const found = scanEntries(text).entries.filter((e) => e.meta?.key === key && e.meta.status === 'active' && !keep(e))
  if (found.length === 0) return null
  const { lines, ended, eol } = linesOf(text)
  for (const e of found)
    lines[(e.metaLine as number) - 1] = formatEntryMeta({ ...(e.meta as EntryMeta), status: 'superseded' })
  return {
    text: joinLines({ lines, ended, eol }),
    retired: found.map((e) => ({ startLine: e.startLine, endLine: e.endLine })),
  }
}

/** `text` without the flushes of session `sessionId` (and a blank line each leaves); null when it has none. */
export function removeSession(
  text: string,
  sessionId: string,
): { text: string; removed: { startLine: number; endLine: number; flushId: string | null }[] } | null {
  const blocks = scanEntries(text).flushes.filter((f) => f.session === sessionId)
  if (blocks.length === 0) return null
  const { lines, ended, eol } = linesOf(text)
  const drop = new Set<number>()
  for (const b of blocks) {
    for (let n = b.startLine; n <= b.endLine; n++) drop.add(n)
    // The blank line written before the heading goes with it.
    if (b.startLine > 1 && (lines[b.startLine - 2] as string).trim() === '') drop.add(b.startLine - 1)
  }
  const kept = lines.filter((_, i) => !drop.has(i + 1))
  while (kept.length > 0 && (kept[0] as string).trim() === '') kept.shift()
  return {
    text: joinLines({ lines: kept, ended, eol }),
    removed: blocks.map((b) => ({ startLine: b.startLine, endLine: b.endLine, flushId: b.flushId })),
  }
}
