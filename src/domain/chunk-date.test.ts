import { describe, expect, it } from 'vitest'
import { chunkDater, dayFileDate } from './chunk-date.js'
import { inDateRange, passesFilters } from './chunks.js'

const local = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0) => new Date(y, mo - 1, d, h, mi, s).getTime()
const MTIME = Date.parse('2026-03-05T10:20:30.456Z')

describe('dayFileDate', () => {
  it.each([
    ['memory/2026-03-01.md', local(2026, 3, 1)],
    ['memory/2026-03-01-standup.md', local(2026, 3, 1)],
    ['team/memory/2026-03-01.md', local(2026, 3, 1)],
    ['memory/2026-02-30.md', null],
    ['memory/2026-13-01.md', null],
    ['memory/projects/2026-03-01.md', null],
    ['MEMORY.md', null],
  ])('%s → %s', (path, at) => {
    expect(dayFileDate(path)).toBe(at)
  })
})

describe('chunkDater', () => {
  it.each([
    // path, headings, date
    ['MEMORY.md', [], null],
    ['memory/2026-03-01.md', [], local(2026, 3, 1)],
    ['memory/2026-03-01.md', ['14:05:09'], local(2026, 3, 1, 14, 5, 9)],
    ['memory/2026-03-01.md', ['Standup', '09:30 deploy review'], local(2026, 3, 1, 9, 30)],
    ['memory/2026-03-01.md', ['Notes about 14:05'], local(2026, 3, 1)],
    ['memory/2026-03-01.md', ['25:00:00'], local(2026, 3, 1)],
    ['memory/projects/search.md', ['10:00:00'], Math.floor(MTIME)],
    ['sessions/abc.jsonl', [], Math.floor(MTIME)],
  ])('%s under %j → %s', (path, headings, at) => {
    const dater = chunkDater(path, MTIME)
    expect(dater.of(headings)).toBe(at)
    // Whether another mtime moves the date.
    expect(dater.byMtime).toBe(chunkDater(path, MTIME + 86_400_000).of(headings) !== at)
  })
})

describe('inDateRange', () => {
  it.each([
    // datedMs, afterMs, beforeMs, datedOnly, passes
    [100, 100, 200, false, true],
    [199, 100, 200, false, true],
    [200, 100, 200, false, false],
    [99, 100, 200, false, false],
    [99, undefined, 200, false, true],
    [500, 100, undefined, false, true],
    [null, 100, 200, false, true],
    [null, 100, 200, true, false],
    [150, 100, 200, true, true],
  ])('%s in [%s, %s) only dated %s → %s', (datedMs, afterMs, beforeMs, datedOnly, passes) => {
    expect(inDateRange(datedMs, { afterMs, beforeMs, datedOnly })).toBe(passes)
  })

  it('applies with the other filters', () => {
    const chunk = { path: 'memory/2026-03-01.md', source: 'memory', datedMs: 150, entry: null }
    expect(passesFilters(chunk, { pathPrefix: 'memory/', dated: { afterMs: 100, datedOnly: false } })).toBe(true)
    expect(passesFilters(chunk, { pathPrefix: 'memory/', dated: { beforeMs: 100, datedOnly: false } })).toBe(false)
  })
})
