import { describe, expect, it } from 'vitest'
import { termFrequencies } from './term-frequencies.js'

const row = { bodyTerms: 'cell cell walru\nliver cell', headingTerms: 'liver transplant' }

describe('termFrequencies', () => {
  it.each([
    ['one term', ['cell'], [3]],
    ['heading occurrences weighted', ['liver', 'transplant'], [1 + 2, 2]],
    ['a term not held', ['walrus', 'cell'], [0, 3]],
    ['a term named twice', ['cell', 'liver', 'cell'], [3, 3, 3]],
    ['a prefix of a held term', ['cel', 'walr'], [0, 0]],
  ])('counts %s the same one term at a time and in one pass', (_, terms, expected) => {
    for (const onePassFrom of [Infinity, 1]) {
      const frequency = termFrequencies(terms, 2, onePassFrom)(row)
      expect(terms.map((_, i) => frequency(i))).toEqual(expected)
    }
  })

  it('counts each candidate from nothing in one pass', () => {
    const frequenciesIn = termFrequencies(['cell', 'liver'], 2, 1)
    const first = frequenciesIn(row)
    expect([first(0), first(1)]).toEqual([3, 3])
    const second = frequenciesIn({ bodyTerms: 'liver', headingTerms: '' })
    expect([second(0), second(1)]).toEqual([0, 1])
  })
})
