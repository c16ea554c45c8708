/**
 * Snippet selection (pure): the chunk text when it fits, otherwise the window of whole
 * lines, at most `maxChars` long, that starts at the line covering the most query terms.
 * The snippet is always an exact substring of the chunk, with no added ellipses.
 */
import { splitLines } from '../text/lines.js'

function coverage(line: string, terms: readonly string[]): number {
  const lower = line.toLowerCase()
  let n = 0
  for (const t of terms) if (lower.includes(t)) n++
  return n
}

export function buildSnippet(text: string, terms: readonly string[], maxChars: number): string {
  if (text.length <= maxChars) return text
  const lines = splitLines(text)
  let best = 0
  let bestCoverage = -1
  lines.forEach((line, i) => {
    const c = coverage(line, terms)
    if (c > bestCoverage) {
      best = i
      bestCoverage = c
    }
  })
  const first = lines[best] as string
  if (first.length >= maxChars) return windowAroundFirstHit(first, terms, maxChars)
  let lo = best
  let hi = best + 1
  let length = first.length
  // Grow forward first (the lines after a match usually explain it), then backward.
  while (hi < lines.length && length + 1 + (lines[hi] as string).length <= maxChars)
    length += 1 + (lines[hi++] as string).length
  while (lo > 0 && length + 1 + (lines[lo - 1] as string).length <= maxChars)
    length += 1 + (lines[--lo] as string).length
  return lines.slice(lo, hi).join('\n')
}

/** `maxChars` code points of one long line, starting a little before the first term found. */
function windowAroundFirstHit(line: string, terms: readonly string[], maxChars: number): string {
  const lower = line.toLowerCase()
  const offsets = terms.map((t) => lower.indexOf(t)).filter((i) => i >= 0)
  // Offsets are UTF-16 units of the lowercased line; lowercasing keeps the length of nearly
  // all text, and where it does not the window merely shifts a little.
  const hit = offsets.length > 0 ? Array.from(line.slice(0, Math.min(...offsets))).length : 0
  const chars = Array.from(line)
  const start = Math.max(0, Math.min(hit - Math.floor(maxChars / 4), chars.length - maxChars))
  return chars.slice(start, start + maxChars).join('')
}
