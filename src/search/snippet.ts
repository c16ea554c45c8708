/**
 * Snippet selection (pure): the chunk text when it fits, otherwise the window of whole
 * lines, at most `maxChars` long, that starts at the line covering the most query terms.
 * Lines are analysed like the index (stemmed, folded), so the analysed query terms find
 * "happy" and "happiness" alike; a chunk's body terms by line, where the search read them,
 * are those analyses already (text/line-terms.ts), and are looked up instead of analysing
 * the text again. The snippet is always an exact substring of the chunk, with no added
 * ellipses.
 */
import { eachIndexTerm, termRuns } from '../text/analyzer.js'
import { termsPerLine } from '../text/line-terms.js'
import { splitLines } from '../text/lines.js'

/**
 * The first line covering the most distinct query terms (its terms as indexed). Each term
 * is numbered once and marked with the line that last found it, so a line costs one visit
 * per word and nothing is built per line; once a line holds every query term no later line
 * can cover more.
 */
function bestLine(lines: readonly string[], terms: ReadonlyMap<string, number>): number {
  const seenOnLine = new Int32Array(terms.size).fill(-1)
  let best = 0
  let bestCoverage = -1
  for (let i = 0; i < lines.length && bestCoverage < terms.size; i++) {
    let coverage = 0
    eachIndexTerm(lines[i] as string, (term) => {
      const k = terms.get(term)
      if (k !== undefined && seenOnLine[k] !== i) {
        seenOnLine[k] = i
        coverage++
      }
    })
    if (coverage > bestCoverage) {
      best = i
      bestCoverage = coverage
    }
  }
  return best
}

/** The first line holding the most terms, from each line's count of them. */
function firstMost(coverage: Int32Array): number {
  let best = 0
  for (let i = 1; i < coverage.length; i++) if ((coverage[i] as number) > (coverage[best] as number)) best = i
  return best
}

/**
 * `text`'s snippet for the analysed `queryTerms`; `bodyTerms`: the chunk's body terms, which
 * are used when they are by line for this text (an older row's are not).
 */
export function buildSnippet(
  text: string,
  queryTerms: readonly string[],
  maxChars: number,
  bodyTerms?: string,
): string {
  if (text.length <= maxChars) return text
  // Each distinct query term numbered (bestLine marks them by number).
  const terms = new Map<string, number>()
  for (const term of queryTerms) if (!terms.has(term)) terms.set(term, terms.size)
  const lines = splitLines(text)
  const coverage = bodyTerms === undefined ? null : termsPerLine(bodyTerms, lines.length, terms.keys())
  const best = coverage ? firstMost(coverage) : bestLine(lines, terms)
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
function windowAroundFirstHit(line: string, terms: ReadonlyMap<string, number>, maxChars: number): string {
  let offset = 0
  for (const run of termRuns(line)) {
    if (run.terms.some((t) => terms.has(t))) {
      offset = run.at
      break
    }
  }
  // Where NFKC changed the length of the text before the hit, the window merely shifts a little.
  const hit = Array.from(line.slice(0, offset)).length
  const chars = Array.from(line)
  const start = Math.max(0, Math.min(hit - Math.floor(maxChars / 4), chars.length - maxChars))
  return chars.slice(start, start + maxChars).join('')
}
