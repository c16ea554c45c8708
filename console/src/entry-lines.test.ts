import { describe, expect, it } from 'vitest'
import { lineRange, viewLines } from './entry-lines.js'

describe('viewLines', () => {
  it('numbers lines, parses metadata, and gives each line the status of its entry until a heading', () => {
    const text = [
      '# Facts',
      '<!-- observed: 2026-01-02 | status: superseded | key: port -->',
      '- The port is 6379.',
      '<!-- status: active | key: port | origin: owner -->',
      '- The port is 6380.',
      '## Later',
      '- no entry here',
    ].join('\n')
    const lines = viewLines(text)
    expect(lines.map((l) => [l.n, l.status])).toEqual([
      [1, null],
      [2, 'superseded'],
      [3, 'superseded'],
      [4, 'active'],
      [5, 'active'],
      [6, null],
      [7, null],
    ])
    expect(lines[1]?.meta).toMatchObject({ status: 'superseded', observed: '2026-01-02', key: 'port' })
    expect(lines[3]?.meta).toMatchObject({ status: 'active', origin: 'owner' })
    expect(lines[2]?.meta).toBeNull()
  })

  it('starts at the window’s first line, and has no lines for an empty file', () => {
    expect(viewLines('a\nb', 10).map((l) => l.n)).toEqual([10, 11])
    expect(viewLines('')).toEqual([])
  })
})

describe('lineRange', () => {
  it.each([
    ['L10-L12', { from: 10, to: 12 }],
    ['L7', { from: 7, to: 7 }],
    ['L3-5', { from: 3, to: 5 }],
    ['L5-L3', null],
    ['L0', null],
    ['10', null],
    [null, null],
  ])('%j → %j', (anchor, range) => {
    expect(lineRange(anchor)).toEqual(range)
  })
})
