/**
 * When a chunk was written, for time-range searches (request fields after / before): a day
 * file `memory/YYYY-MM-DD.md` (or `…-slug.md`) is dated by its name, at the server's local
 * midnight (flush names day files by local date), and a chunk under a flush heading
 * (`## HH:MM:SS`, flush-service.ts) at that time of the day; long-term memory (`MEMORY.md`)
 * is undated; any other file (notes in other folders, transcripts) by its modification time.
 * Pure: the local time zone is the process's (TZ).
 */
import { MEMORY_FILE } from './layout.js'

/** A day file's path (also under team/, as search shows team memory). */
const DAY_FILE = /^(?:team\/)?memory\/(\d{4})-(\d{2})-(\d{2})(?:-[^/]*)?\.md$/
/** A flush heading: the time of day the entry was written, optionally followed by a title. */
const TIME_HEADING = /^(\d{2}):(\d{2})(?::(\d{2}))?(?:\s|$)/

/** The local midnight of a date (month 1–12), or null for an impossible date. */
export function localMidnight(year: number, month: number, day: number): number | null {
  // setFullYear, not new Date(year, …): that reads years 0-99 as 1900-1999.
  const at = new Date(2000, 0, 1)
  at.setFullYear(year, month - 1, day)
  // new Date rolls an impossible date over (Feb 30 → Mar 2): that is no date.
  return at.getFullYear() === year && at.getMonth() === month - 1 && at.getDate() === day ? at.getTime() : null
}

/** The local midnight of a day file's date, or null for any other path or an impossible date. */
export function dayFileDate(path: string): number | null {
  const m = DAY_FILE.exec(path)
  return m ? localMidnight(Number(m[1]), Number(m[2]), Number(m[3])) : null
}

/** Milliseconds into the day the innermost flush heading names, or 0 when none does. */
function timeOfDay(headings: readonly string[]): number {
  for (let i = headings.length - 1; i >= 0; i--) {
    const m = TIME_HEADING.exec(headings[i] ?? '')
    if (!m) continue
    const [h, min, s] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)]
    if (h < 24 && min < 60 && s < 60) return ((h * 60 + min) * 60 + s) * 1000
  }
  return 0
}

/**
 * A chunk's date in ms since the epoch, or null when undated. `headings` are the chunk's
 * enclosing headings, outermost first; `mtimeMs` its file's modification time.
 */
export function chunkDate(path: string, mtimeMs: number, headings: readonly string[]): number | null {
  if (path === MEMORY_FILE) return null
  const day = dayFileDate(path)
  if (day === null) return Math.floor(mtimeMs)
  // Local midnight plus the heading's clock time (a DST change that day shifts it by an hour).
  return day + timeOfDay(headings)
}
