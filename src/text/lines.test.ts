import { describe, expect, it } from 'vitest'
import { countLines, countLinesIn, decodeText, splitLines } from './lines.js'

describe('splitLines', () => {
  it.each([
    ['', []],
    ['a', ['a']],
    ['a\n', ['a']],
    ['a\nb', ['a', 'b']],
    ['a\r\nb\r\n', ['a', 'b']],
    ['a\n\nb', ['a', '', 'b']],
    ['\n', ['']],
    ['a\n\n', ['a', '']],
  ])('splits %j into %j', (text, lines) => {
    expect(splitLines(text)).toEqual(lines)
  })
})

describe('countLines and countLinesIn', () => {
  it.each(['', 'a', 'a\n', 'a\nb', 'a\r\nb\r\n', 'a\n\nb', '\n', 'a\n\n', '模型\n升级', '模型\n升级\n'])(
    'count %j as splitLines does, from text and from bytes',
    (text) => {
      expect(countLines(text)).toBe(splitLines(text).length)
      expect(countLinesIn(Buffer.from(text, 'utf8'))).toBe(splitLines(text).length)
    },
  )
})

describe('decodeText', () => {
  it('drops a UTF-8 byte order mark', () => {
    expect(decodeText(Buffer.from('\ufeffhello', 'utf8'))).toBe('hello')
  })

  it('replaces invalid UTF-8 with U+FFFD instead of failing', () => {
    expect(decodeText(Uint8Array.from([0x61, 0xff, 0x62]))).toBe('a\ufffdb')
  })
})
