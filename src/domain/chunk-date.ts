/**
 * When a chunk was written, for time-range searches (request fields after / before): a day
 * file `memory/YYYY-MM-DD.md` (or `…-slug.md`) is dated by its name, at the server's local
 * midnight (flush names day files by local date), and a chunk under a flush heading
 * (`## HH:MM:SS`, flush-service.ts) at that time of the day; long-term memory (`MEMORY.md`)
 * is undated; any other file (notes in other folders, transcripts) by its modification time.
 * Pure: the local time zone is the process's (TZ).
 */
import { MEMORY_FILE } from './layout.js'

/** A day file's path: memory/YYYY-MM-DD.md or memory/YYYY-MM-DD-slug.md, also under team/. */
const DAY_FILE = /^(?:team\/)?memory\/(\d{4})-(\d{2})-(\d{2})(?:-[^/]*)?\.md$/
/** A flush heading: the time of day the entry was written, optionally followed by a title. */
const TIME_HEADING = /^(\d{2}):(\d{2})(?::(\d{2}))?(?:\s|$)/

/** The midnight of a date (month 1–12), local or UTC, or null for an impossible date. */
function midnight(year: number, month: number, day: number, utc: boolean): number | null {
  // setFullYear, not new Date(year, …) or Date.UTC: those read years 0-99 as 1900-1999.
  const at = new Date(utc ? Date.UTC(2000, 0, 1) : new Date(2000, 0, 1).getTime())
  if (utc) at.setUTCFullYear(year, month - 1, day)
  else at.setFullYear(year, month - 1, day)
  const got = utc
    ? [at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()]
    : [at.getFullYear(), at.getMonth(), at.getDate()]
  // An impossible date rolls over (Feb 30 → Mar 2): that is no date.
  return got[0] === year && got[1] === month - 1 && got[2] === day ? at.getTime() : null
}

/** The local midnight of a date (month 1–12), or null for an impossible date. */
export const localMidnight = (year: number, month: number, day: number) => midnight(year, month, day, false)
/** The UTC midnight of a date (month 1–12), or null for an impossible date. */
export const utcMidnight = (year: number, month: number, day: number) => midnight(year, month, day, true)

/** The date a day file's name gives (month 1–12, not checked), or null for any other path. */
export function dayFileName(path: string): { year: number; month: number; day: number } | null {
  const m = DAY_FILE.exec(path)
  return m ? { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) } : null
}

/** The local midnight of a day file's date, or null for any other path or an impossible date. */
export function dayFileDate(path: string): number | null {
  const name = dayFileName(path)
  return name && localMidnight(name.year, name.month, name.day)
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
 * Dates the chunks of one file (its path read once): `of` gives a chunk's date in ms since
 * the epoch, or null when undated, from its enclosing headings (outermost first);
 * `mtimeMs` is the file's modification time, and `byMtime` whether the dates depend on it.
 */
export function chunkDater(
  path: string,
  mtimeMs: number,
): { of: (headings: readonly string[]) => number | null; byMtime: boolean } {
  if (path === MEMORY_FILE) return { of: () => null, byMtime: false }
  const day = dayFileDate(path)
  if (day === null) return { of: () => Math.floor(mtimeMs), byMtime: true }
  // Local midnight plus the heading's clock time (a DST change that day shifts it by an hour).
  return { of: (headings) => day + timeOfDay(headings), byMtime: false }
}
