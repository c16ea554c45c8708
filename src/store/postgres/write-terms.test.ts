import { describe, expect, it } from 'vitest'
import { columnCounts } from '../../text/term-count.js'
import { termCheck, termHash } from './term-hash.js'
import { createTermDeltas, createWriteTerms, type ChunkTerms } from './write-terms.js'

/** A chunk's terms back as [term, body, heading], in row order. */
const rows = (w: ReturnType<typeof createWriteTerms>, c: ChunkTerms) =>
  Array.from(c.slots, (s, i) => [w.terms[s], c.body[i], c.heading[i]] as const)

/** What the row holds by the older way: columnCounts, ordered by signed termHash. */
const expected = (body: string, heading: string) =>
  [...columnCounts(body, heading)]
    .map(([term, [b, h]]) => [term, b, h] as const)
    .sort((a, b) => termHash(a[0]) - termHash(b[0]))

describe('createWriteTerms', () => {
  it.each([
    ['one term', 'alpha', ''],
    ['repeats in both columns', 'alpha beta alpha gamma alpha', 'beta alpha'],
    ['a term and its prefix', 'ab abc a abcd abc', 'abc'],
    ['headings only', '', 'title words title'],
    ['nothing', '', ''],
    ['CJK bigrams and characters', '记忆 忆服 记 忆 服务 记忆', '服务'],
    ['a character outside the BMP', '😀 x 😀 😀x', 'x'],
    ['joined identifiers', 'api-key api key user@host.io user host io', 'api-key'],
    ['body terms by line', 'alpha beta\nalpha\n\nbeta gamma\n', 'beta'],
  ])('%s: the counts of columnCounts, in signed termHash order', (_name, body, heading) => {
    const w = createWriteTerms()
    expect(rows(w, w.count(body, heading))).toEqual(expected(body, heading))
  })

  it('hashes each distinct term once, as termHash and termCheck do', () => {
    const w = createWriteTerms()
    w.count('one two three two', 'four')
    w.count('three five', 'one')
    expect([...w.terms]).toEqual(['one', 'two', 'three', 'four', 'five'])
    expect([...w.hashes]).toEqual(w.terms.map(termHash))
    expect([...w.checks]).toEqual(w.terms.map(termCheck))
  })

  it('counts chunks holding a term, not its occurrences, and counts deletions out, in term order', () => {
    const w = createWriteTerms()
    const d = createTermDeltas(w)
    d.inserted(w.count('a a a b', 'c'))
    w.count('e', '') // counted, never inserted: not touched
    d.inserted(w.count('a', 'a'))
    d.removed(w.count('b', 'd d'))
    const { terms, deltas } = d.byTerm()
    expect({ terms, deltas: [...deltas] }).toEqual({ terms: ['a', 'b', 'c', 'd'], deltas: [2, 0, 1, -1] })
  })

  it('orders slots by term once, and merges terms added after in their place', () => {
    const w = createWriteTerms()
    const d = createTermDeltas(w)
    d.inserted(w.count('pear apple 记忆 zebra', 'mango'))
    const texts = (slots: Int32Array) => Array.from(slots, (s) => w.terms[s])
    expect(texts(w.ordered())).toEqual(['apple', 'mango', 'pear', 'zebra', '记忆'])
    expect(w.ordered()).toBe(w.ordered())
    // A deletion's terms counted inside the transaction, after the batch's were sorted.
    d.removed(w.count('banana pear', 'aardvark 😀 zulu'))
    expect(texts(w.ordered())).toEqual([...w.terms].sort())
    expect(d.byTerm().terms).toEqual(['aardvark', 'apple', 'banana', 'mango', 'pear', 'zebra', 'zulu', '记忆', '😀'])
  })

  it('tells a row with two terms of one hash apart, and still counts both', () => {
    expect(termHash('costarring')).toBe(termHash('liquid'))
    const w = createWriteTerms()
    const both = w.count('costarring liquid liquid', '')
    expect(both.unique).toBe(false)
    expect(new Map(rows(w, both).map(([t, b]) => [t, b]))).toEqual(
      new Map([
        ['costarring', 1],
        ['liquid', 2],
      ]),
    )
    expect(w.count('liquid other', '').unique).toBe(true)
    expect(w.slotOf('liquid')).not.toBe(w.slotOf('costarring'))
  })

  it('orders rows the same past the slots that sort packed with their hash', () => {
    const body = Array.from({ length: 40 }, (_, i) => `t${i}`).join(' ')
    const w = createWriteTerms(8)
    expect(rows(w, w.count(body, 't3 t39'))).toEqual(expected(body, 't3 t39'))
  })
})
