/**
 * What no write may put into a memory file (the write API, flushes, MCP). Flush markers: the line `<!-- mnemo:flush id=… lines=N -->` a flush with a flushId writes
 * under its heading, by which a retried flush finds the first one (flush-service.ts). They
 * are the service's own: a marker in content a client sends would claim a later flush's id
 * (that flush is then refused, flush-markers.ts), so no write may introduce one.
 */
import { splitLines } from '../text/lines.js'

/**
 * A whole marker line: the flush id, how many note lines follow it, and (when duplicates were
 * left out of the notes, entry-service.ts) the first 16 hex digits of the SHA-256 of the notes
 * the flush asked for, so that its retry is still known for the same flush.
 */
export const FLUSH_MARKER = /^<!-- mnemo:flush id=([A-Za-z0-9._:-]{1,128}) lines=(\d+)(?: asked=([0-9a-f]{16}))? -->$/
const MARKER_START = '<!-- mnemo:flush '

export const REFUSED_MARKER = `Content may not contain "${MARKER_START}" (reserved for flush markers)`

export const hasFlushMarker = (text: string): boolean => text.includes(MARKER_START)

/** Every whole marker line, anywhere in a text (FLUSH_MARKER is for one line). */
const MARKER_LINES = /^<!-- mnemo:flush id=[A-Za-z0-9._:-]{1,128} lines=\d+(?: asked=[0-9a-f]{16})? -->$/gm

/**
 * The text with each marker line emptied, every other line and every line number kept:
 * markers are bookkeeping, not memory, so they are neither indexed nor shown in snippets.
 */
export const blankFlushMarkers = (text: string): string =>
  hasFlushMarker(text) ? text.replace(MARKER_LINES, '') : text

/**
 * Whether replacing `current` with `next` adds a line holding a marker. Markers already in
 * the file may stay (a client may read a day file, edit it and write it back whole).
 */
export function introducesMarker(next: string, current: string | null): boolean {
  if (!hasFlushMarker(next)) return false
  const kept = new Map<string, number>()
  for (const line of splitLines(current ?? '')) {
    if (hasFlushMarker(line)) kept.set(line, (kept.get(line) ?? 0) + 1)
  }
  for (const line of splitLines(next)) {
    if (!hasFlushMarker(line)) continue
    const left = kept.get(line) ?? 0
    if (left === 0) return true
    kept.set(line, left - 1)
  }
  return false
}

/** Markdown has no use for NUL characters, and many tools stop reading at one. */
export const hasNul = (text: string): boolean => text.includes('\u0000')

export const REFUSED_NUL = 'Content may not contain NUL characters'
