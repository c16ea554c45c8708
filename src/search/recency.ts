/**
 * Temporal decay (pure, opt-in): a dated day file's chunks lose half their score every
 * `halfLifeDays` days of age, so among equally good matches the newer note wins. Only day
 * files decay (memory/YYYY-MM-DD.md, memory/YYYY-MM-DD-slug.md, their team/ copies):
 * MEMORY.md and undated files hold lasting facts and never do.
 */
import { dayFileName, utcMidnight } from '../domain/chunk-date.js'

const DAY_MS = 86_400_000

/** The UTC midnight of a day file's date, or null for any other path (or an impossible date). */
export function dayOfPath(path: string): number | null {
  const name = dayFileName(path)
  return name && utcMidnight(name.year, name.month, name.day)
}

/**
 * The factor a score is multiplied by: 2^(−age / halfLife), age in whole days since the
 * file's date (a date in the future counts as today). 1 for undated files or halfLife 0.
 */
export function decayFactor(path: string, nowMs: number, halfLifeDays: number): number {
  if (halfLifeDays <= 0) return 1
  const day = dayOfPath(path)
  if (day === null) return 1
  const ageDays = Math.max(0, Math.floor((nowMs - day) / DAY_MS))
  return 2 ** (-ageDays / halfLifeDays)
}
