/**
 * Time-range bounds of a search request (pure): `after` (inclusive) and `before`
 * (exclusive) as an ISO date, meaning the server's local midnight as day files are named
 * by local date, or an ISO date-time (local without an offset, as JavaScript reads it).
 */
import { localMidnight } from '../domain/chunk-date.js'
import type { DateRange } from '../domain/chunks.js'

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2})?$/

/** ms since the epoch of a bound, or null when it is not an ISO date or date-time. */
export function parseDateBound(text: string): number | null {
  const day = DATE.exec(text)
  if (day) return localMidnight(Number(day[1]), Number(day[2]), Number(day[3]))
  if (!DATE_TIME.test(text)) return null
  const at = Date.parse(text)
  return Number.isNaN(at) ? null : at
}

/**
 * The range a request asks for, or undefined when it names none. Throws a RangeError when a
 * bound is not a date or `after` is not before `before`: the caller answers 400.
 */
export function dateRangeOf(req: {
  after?: string | undefined
  before?: string | undefined
  datedOnly?: boolean | undefined
}): DateRange | undefined {
  if (req.after === undefined && req.before === undefined && !req.datedOnly) return undefined
  const bound = (name: string, text: string | undefined) => {
    if (text === undefined) return undefined
    const at = parseDateBound(text)
    if (at === null) throw new RangeError(`"${name}" must be an ISO date (2026-03-01) or date-time (2026-03-01T09:30)`)
    return at
  }
  const afterMs = bound('after', req.after)
  const beforeMs = bound('before', req.before)
  if (afterMs !== undefined && beforeMs !== undefined && afterMs >= beforeMs) {
    throw new RangeError('"after" must be earlier than "before"')
  }
  return { afterMs, beforeMs, datedOnly: req.datedOnly === true }
}
