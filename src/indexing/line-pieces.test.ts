import { describe, expect, it } from 'vitest'
import { estimateTokens } from '../text/token-estimate.js'
import { splitLongLine, type LinePiece } from './line-pieces.js'

/** Checks that each piece is the line at its offset, that pieces touch or overlap, and that they cover the line. */
function expectCoverage(line: string, pieces: LinePiece[]): number {
  const chars = Array.from(line)
  let covered = 0
  let overlaps = 0
  for (const p of pieces) {
    const length = Array.from(p.text).length
    expect(chars.slice(p.start, p.start + length).join('')).toBe(p.text)
    expect(p.start).toBeLessThanOrEqual(covered)
    if (p.start < covered) overlaps++
    covered = Math.max(covered, p.start + length)
  }
  expect(covered).toBe(chars.length)
  return overlaps
}

describe('splitLongLine', () => {
  it('returns a line within budget as one piece', () => {
    expect(splitLongLine('short line', 40, 8)).toEqual([{ text: 'short line', tokens: 3, start: 0 }])
  })

  it.each([
    ['Chinese with sentence ends', '这是一个很长的段落。'.repeat(30)],
    ['Chinese without punctuation', '这是一个很长的段落'.repeat(30)],
    ['English words', 'the quick brown fox jumps over the lazy dog '.repeat(40)],
    ['one unbroken token', 'x'.repeat(1000)],
    ['mixed scripts', '将默认模型从 qwen-plus 升级为 qwen-max，因为 long-context reasoning 更稳定。'.repeat(12)],
  ])('covers %s in overlapping pieces within budget', (_name, line) => {
    const pieces = splitLongLine(line, 40, 8)
    expect(pieces.length).toBeGreaterThan(1)
    for (const p of pieces) expect(estimateTokens(p.text)).toBeLessThanOrEqual(41)
    expect(expectCoverage(line, pieces)).toBeGreaterThan(0)
  })

  it('cuts after a sentence end when one is near the budget', () => {
    const line = `${'甲'.repeat(35)}。${'乙'.repeat(60)}`
    expect(splitLongLine(line, 40, 0)[0]?.text).toBe(`${'甲'.repeat(35)}。`)
  })
})
