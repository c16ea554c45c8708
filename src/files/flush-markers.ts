/**
 * Flush markers read back (flush-service.ts): the line `<!-- mnemo:flush id=… lines=N -->`
 * under an entry's heading names the flush that wrote the entry. A flushId names one
 * content (issue 30): a later flush with that id is a replay only when the entry under the
 * marker holds what it would write — its notes, and the heading's agent and session where
 * the request names them — and 409 FLUSH_ID_CONFLICT otherwise. That is read from the text
 * under the marker, never from the marker alone: a marker can come from a restored backup
 * or an edit on disk, and old markers carry nothing but the id and the line count.
 */
import { parseEntryMeta } from '../domain/entry-meta.js'
import { sha256 } from '../domain/hashing.js'
import { appError, type AppError } from '../shared/errors.js'
import { countNewlines, splitLines } from '../text/lines.js'
import { FLUSH_MARKER } from './content-rules.js'

export type Range = { startLine: number; endLine: number }

/**
 * What a flush wrote, as a retry must repeat it: its notes (SHA-256 of their lines joined by
 * `\n`, so CRLF and LF compare equal) and the agent and session its heading names (null:
 * none; also for a heading that is not a flush heading at all).
 */
export type FlushContent = {
  notesSha256: string
  agent: string | null
  session: string | null
  /** The marker's `asked`: what the flush asked for when it wrote fewer notes (16 hex digits); null: what it wrote. */
  asked: string | null
}

/** A flush found in a day file: its lines, heading to last note, and what they hold. */
export type MarkedFlush = Range & FlushContent

/**
 * What a flush request asks to write; an agent or session left undefined is not compared.
 * `askedSha256`: the notes the client sent, when duplicates were left out of `notesSha256`'s.
 */
export type AskedFlush = {
  notesSha256: string
  agent?: string | undefined
  session?: string | undefined
  askedSha256?: string | undefined
}

/** How much of the asked notes' SHA-256 a marker keeps (64 bits: a retry, not an adversary). */
export const ASKED_HEX = 16

/** The heading composeFlush writes: `## HH:MM:SS`, then ` · agent A`, then ` · session S`, each when given. */
const HEADING = /^## \d{2}:\d{2}:\d{2}(?: · agent (.+?))?(?: · session (.+))?$/

/**
 * The fingerprint of notes: their lines as the line model reads them (a `\r` before `\n`
 * dropped), without entry metadata comments — those record the flush's origin and key and
 * its day (a retry after midnight lands in another day file), and a supersede may mark them.
 */
export const notesSha256 = (notes: string): string => sha256(notesLines(splitLines(notes)).join('\n'))

const notesLines = (lines: readonly string[]) =>
  lines.filter((line) => !line.includes('<!--') || parseEntryMeta(line).kind !== 'meta')

/** What a request would write: its notes, and the heading labels it names. */
export const askedOf = (
  req: { agentId?: string | undefined; sessionId?: string | undefined; asked?: string | undefined },
  body: string,
) =>
  ({
    notesSha256: notesSha256(body),
    agent: req.agentId,
    session: req.sessionId,
    ...(req.asked !== undefined && { askedSha256: req.asked }),
  }) satisfies AskedFlush

/** The `asked` a marker records for `asked`: only when the notes written are not those asked for. */
export const askedPrefix = (asked: AskedFlush): string | null =>
  asked.askedSha256 !== undefined && asked.askedSha256 !== asked.notesSha256
    ? asked.askedSha256.slice(0, ASKED_HEX)
    : null

/** The content a request writes, as a marker read back from its entry would show it. */
export const contentOf = (asked: AskedFlush): FlushContent => ({
  notesSha256: asked.notesSha256,
  agent: asked.agent ?? null,
  session: asked.session ?? null,
  asked: askedPrefix(asked),
})

/**
 * Whether `asked` is the flush that wrote `found`: the same notes — those written, or those
 * asked for when duplicates were left out (a retry may leave out others, as what is active
 * changed meanwhile) — and the labels it names.
 */
export function isSameFlush(found: FlushContent, asked: AskedFlush): boolean {
  const sent = asked.askedSha256 ?? asked.notesSha256
  const sameNotes =
    found.notesSha256 === asked.notesSha256 ||
    found.notesSha256 === sent ||
    (found.asked !== null && sent.startsWith(found.asked))
  return (
    sameNotes &&
    (asked.agent === undefined || found.agent === asked.agent) &&
    (asked.session === undefined || found.session === asked.session)
  )
}

/** 409 for a flushId seen before with other content: the earlier entry is where `range` says in `rel`. */
export function flushIdConflict(flushId: string, rel: string, range: Range): AppError {
  return appError(
    'FLUSH_ID_CONFLICT',
    `flushId "${flushId}" was used for other notes (${rel}, lines ${range.startLine}–${range.endLine}): ` +
      'nothing was appended; use a new flushId for new notes',
    { details: { flushId, path: rel, startLine: range.startLine, endLine: range.endLine } },
  )
}

/**
 * Markers of a file's text: flushId → the lines its flush wrote (heading to last note) and
 * what they hold. A marker counts only when its whole entry is in the file, every note line
 * ended by its newline: a flush cut short (a crash, a full disk) must not make its retry
 * look done. A second marker with the same id (a hand-made copy) replaces the first.
 */
export function parseMarkers(text: string): Map<string, MarkedFlush> {
  const found = new Map<string, MarkedFlush>()
  if (!text.includes('<!-- mnemo:flush ')) return found
  const endedLines = countNewlines(Buffer.from(text, 'utf8'))
  const lines = splitLines(text)
  lines.forEach((line, i) => {
    const m = FLUSH_MARKER.exec(line)
    if (!m) return
    // Line i + 1 holds the marker; the heading is the line above it, the notes below it.
    const noteLines = Number(m[2])
    const endLine = i + 1 + noteLines
    if (endLine > endedLines) return
    const heading = i > 0 ? HEADING.exec(lines[i - 1] as string) : null
    found.set(m[1] as string, {
      startLine: i,
      endLine,
      notesSha256: sha256(notesLines(lines.slice(i + 1, endLine)).join('\n')),
      agent: heading?.[1] ?? null,
      session: heading?.[2] ?? null,
      asked: m[3] ?? null,
    })
  })
  return found
}
