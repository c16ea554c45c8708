import { describe, expect, it } from 'vitest'
import { ASCII_TEXT_RUN, NON_ASCII, TEXT_RUN } from './scripts.js'

/** Each match's offset and groups. */
const runs = (text: string, pattern: RegExp) => [...text.matchAll(pattern)].map((m) => [m.index, m[1], m[2]])

/** Deterministic ASCII strings: every printable character and the connectors, in runs. */
function asciiSamples(count: number): string[] {
  const alphabet = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('') + '\t\n\r-_.:/@+#aZ9'
  let seed = 35
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
  return Array.from({ length: count }, () =>
    Array.from({ length: 1 + Math.floor(next() * 40) }, () => alphabet[Math.floor(next() * alphabet.length)]).join(''),
  )
}

describe('ASCII_TEXT_RUN', () => {
  it.each([
    ['Hello, World!'],
    ['qwen-max v1.2.3 POSTGRES_URL user@host a/b c+d #tag'],
    ['2026-02-16 -lead trail- a--b a-.b .x. _y_'],
    ['tab\tand\nnewline\r\nend'],
  ])('finds the runs TEXT_RUN finds in %j', (text) => {
    expect(runs(text, ASCII_TEXT_RUN)).toEqual(runs(text, TEXT_RUN))
  })

  it('finds the runs TEXT_RUN finds in any ASCII text', () => {
    for (const text of asciiSamples(2000)) expect(runs(text, ASCII_TEXT_RUN)).toEqual(runs(text, TEXT_RUN))
  })

  it('is used only for ASCII text (NON_ASCII tells)', () => {
    expect(NON_ASCII.test('plain ascii ~')).toBe(false)
    expect(NON_ASCII.test('café')).toBe(true)
    expect(NON_ASCII.test('模型')).toBe(true)
  })
})
