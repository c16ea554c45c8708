/**
 * Splits one over-long line (a pasted paragraph, a Chinese article with no line breaks) into
 * pieces of at most `maxTokens` estimated tokens that overlap by about `overlapTokens`.
 * Cuts prefer sentence ends, then whitespace, in the last quarter of a piece.
 */
import { charTokenCost } from '../text/token-estimate.js'

export type LinePiece = {
  text: string
  tokens: number
  /** Offset of the piece in the line, in code points. */
  start: number
}

const SENTENCE_END = /[。！？；.!?;]/
const SOFT_BREAK = /[\s，、,：:）)]/

/** Index just after the best break in chars[lo, hi), or hi when none is found. */
function bestCut(chars: string[], lo: number, hi: number): number {
  let soft = -1
  for (let i = hi - 1; i >= lo; i--) {
    const ch = chars[i] as string
    if (SENTENCE_END.test(ch)) return i + 1
    if (soft < 0 && SOFT_BREAK.test(ch)) soft = i + 1
  }
  return soft > 0 ? soft : hi
}

/** Pieces of `line`; a line within budget comes back as a single piece. */
export function splitLongLine(line: string, maxTokens: number, overlapTokens: number): LinePiece[] {
  const chars = Array.from(line)
  const costs = chars.map(charTokenCost)
  const pieces: LinePiece[] = []
  let start = 0
  while (start < chars.length) {
    let end = start
    let tokens = 0
    while (end < chars.length && tokens + (costs[end] as number) <= maxTokens) {
      tokens += costs[end] as number
      end++
    }
    if (end === start) end = start + 1
    if (end < chars.length) {
      let cutFrom = end
      let budget = 0
      while (cutFrom > start + 1 && budget < maxTokens / 4) budget += costs[--cutFrom] as number
      end = bestCut(chars, cutFrom, end)
    }
    const text = chars.slice(start, end).join('')
    pieces.push({ text, tokens: Math.ceil(costs.slice(start, end).reduce((a, b) => a + b, 0)), start })
    if (end >= chars.length) break
    let next = end
    let overlap = 0
    while (next > start + 1 && overlap + (costs[next - 1] as number) <= overlapTokens) {
      overlap += costs[--next] as number
    }
    if (next < end && overlap > 0) next = Math.max(next, bestCutForward(chars, next, end))
    start = next
  }
  return pieces
}

/**
 * Moves an overlap start forward to just after a break, so pieces start on a word; only
 * the first half of the overlap is searched, so at least half of the overlap remains.
 */
function bestCutForward(chars: string[], lo: number, hi: number): number {
  const limit = lo + Math.floor((hi - lo) / 2)
  for (let i = lo; i < limit; i++) {
    const ch = chars[i] as string
    if (SENTENCE_END.test(ch) || SOFT_BREAK.test(ch)) return i + 1
  }
  return lo
}
