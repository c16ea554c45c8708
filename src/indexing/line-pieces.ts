/**
 * Splits one over-long line (a pasted paragraph, a Chinese article with no line breaks) into
 * pieces of at most `maxTokens` estimated tokens that overlap by about `overlapTokens`.
 * Cuts prefer sentence ends, then whitespace, in the last quarter of a piece.
 *
 * Pieces are produced one at a time, looking only at the window of the next piece and
 * allocating no string per character, so a line of megabytes costs time in proportion to
 * its length and the caller can give the event loop a turn between pieces.
 */
import { isCjkCodePoint, LATIN_CHARS_PER_TOKEN } from '../text/token-estimate.js'

export type LinePiece = {
  text: string
  tokens: number
  /** Offset of the piece in the line, in code points. */
  start: number
}

const SENTENCE_END = new Set([...'。！？；.!?;'].map((c) => c.codePointAt(0)))
const SOFT_BREAK = new Set([...'，、,：:）) \t'].map((c) => c.codePointAt(0)))
const OTHER_SPACE = /\s/

const isSentenceEnd = (cp: number) => SENTENCE_END.has(cp)
const isSoftBreak = (cp: number) => SOFT_BREAK.has(cp) || (cp > 0x7f && OTHER_SPACE.test(String.fromCodePoint(cp)))

/** The characters of a piece's window: code points, their costs and code-unit offsets. */
type Window = { points: number[]; costs: number[]; offsets: number[]; endUnit: number; more: boolean }

/** The characters of the line from code unit `from` that fit in `maxTokens` (at least one). */
function windowAt(line: string, from: number, maxTokens: number): Window {
  const points: number[] = []
  const costs: number[] = []
  const offsets: number[] = []
  let tokens = 0
  let at = from
  while (at < line.length) {
    const cp = line.codePointAt(at) as number
    const cost = isCjkCodePoint(cp) ? 1 : 1 / LATIN_CHARS_PER_TOKEN
    if (tokens + cost > maxTokens && points.length > 0) break
    points.push(cp)
    costs.push(cost)
    offsets.push(at)
    tokens += cost
    at += cp > 0xffff ? 2 : 1
  }
  return { points, costs, offsets, endUnit: at, more: at < line.length }
}

/** Index just after the best break in points[lo, hi), or hi when none is found. */
function bestCut(points: readonly number[], lo: number, hi: number): number {
  let soft = -1
  for (let i = hi - 1; i >= lo; i--) {
    const cp = points[i] as number
    if (isSentenceEnd(cp)) return i + 1
    if (soft < 0 && isSoftBreak(cp)) soft = i + 1
  }
  return soft > 0 ? soft : hi
}

/**
 * Moves an overlap start forward to just after a break, so pieces start on a word; only
 * the first half of the overlap is searched, so at least half of the overlap remains.
 */
function bestCutForward(points: readonly number[], lo: number, hi: number): number {
  const limit = lo + Math.floor((hi - lo) / 2)
  for (let i = lo; i < limit; i++) {
    const cp = points[i] as number
    if (isSentenceEnd(cp) || isSoftBreak(cp)) return i + 1
  }
  return lo
}

/** Pieces of `line`, in order; a line within budget comes back as a single piece. */
export function* linePieces(line: string, maxTokens: number, overlapTokens: number): Generator<LinePiece> {
  let startUnit = 0
  let startPoint = 0
  while (startUnit < line.length) {
    const { points, costs, offsets, endUnit, more } = windowAt(line, startUnit, maxTokens)
    let end = points.length
    if (more) {
      let cutFrom = end
      let budget = 0
      while (cutFrom > 1 && budget < maxTokens / 4) budget += costs[--cutFrom] as number
      end = bestCut(points, cutFrom, end)
    }
    let tokens = 0
    for (let i = 0; i < end; i++) tokens += costs[i] as number
    const endAt = end < points.length ? (offsets[end] as number) : endUnit
    yield { text: line.slice(startUnit, endAt), tokens: Math.ceil(tokens), start: startPoint }
    if (!more && end === points.length) return
    let next = end
    let overlap = 0
    while (next > 1 && overlap + (costs[next - 1] as number) <= overlapTokens) overlap += costs[--next] as number
    if (next < end && overlap > 0) next = Math.max(next, bestCutForward(points, next, end))
    startUnit = offsets[next] as number
    startPoint += next
  }
}

/** All pieces of `line` at once (for lines of ordinary length). */
export const splitLongLine = (line: string, maxTokens: number, overlapTokens: number): LinePiece[] => [
  ...linePieces(line, maxTokens, overlapTokens),
]
