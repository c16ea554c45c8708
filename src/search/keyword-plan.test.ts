import { describe, expect, it } from 'vitest'
import { isNoise, planKeywordQuery, samePlan } from './keyword-plan.js'

const stats = (...pairs: [string, number][]) => pairs.map(([term, docFreq]) => ({ term, docFreq }))
const N = 10_000

describe('isNoise', () => {
  it.each([
    [4999, N, false],
    [5000, N, true],
    [9000, N, true],
    [1, 2, true],
    [1, 3, false],
  ])('df %i of %i rows is noise: %j', (df, rows, noise) => {
    expect(isNoise(df, rows)).toBe(noise)
  })
})

describe('planKeywordQuery', () => {
  it('runs the whole query in FTS5 when it fits the posting budget, noise terms included', () => {
    expect(planKeywordQuery(stats(['a', 10], ['b', 20]), N, 100)).toEqual({
      kind: 'ranked',
      selective: ['a', 'b'],
      common: [],
    })
    expect(planKeywordQuery(stats(['a', 30], ['b', 40]), 50, 100)).toEqual({
      kind: 'ranked',
      selective: ['a', 'b'],
      common: [],
    })
  })

  it('drops terms found nowhere, and is empty when no term occurs', () => {
    expect(planKeywordQuery(stats(['missing', 0], ['a', 5]), N, 100)).toEqual({
      kind: 'ranked',
      selective: ['a'],
      common: [],
    })
    expect(planKeywordQuery(stats(['x', 0]), N, 100)).toEqual({ kind: 'empty' })
  })

  it('keeps the rarest informative terms within budget, re-scores the rest and sets noise aside', () => {
    const plan = planKeywordQuery(stats(['memory', 9000], ['qwen', 30], ['agent', 3000], ['deploy', 900]), N, 1000)
    expect(plan).toEqual({ kind: 'ranked', selective: ['qwen', 'deploy'], common: stats(['agent', 3000]) })
  })

  it('always keeps the rarest informative term, even over budget', () => {
    expect(planKeywordQuery(stats(['memory', 9000], ['agent', 3000], ['user', 4000]), N, 1000)).toEqual({
      kind: 'ranked',
      selective: ['agent'],
      common: stats(['user', 4000]),
    })
  })

  it('plans a noise query when every term is in half the chunks or more', () => {
    expect(planKeywordQuery(stats(['memory', 9000], ['model', 6000], ['decide', 0]), N, 1000)).toEqual({
      kind: 'noise',
      noise: stats(['memory', 9000], ['model', 6000]),
    })
  })
})

describe('samePlan', () => {
  const ranked = (selective: string[], common: string[] = []) => ({
    kind: 'ranked' as const,
    selective,
    common: common.map((term) => ({ term, docFreq: 1 })),
  })
  it.each([
    ['the same terms, the same order', ranked(['a', 'b'], ['c']), ranked(['a', 'b'], ['c']), true],
    [
      'common terms of other frequencies',
      ranked(['a'], ['c']),
      { ...ranked(['a']), common: [{ term: 'c', docFreq: 9 }] },
      true,
    ],
    ['selective terms in another order (summed in another order)', ranked(['a', 'b']), ranked(['b', 'a']), false],
    ['a term moved to the common ones', ranked(['a', 'b']), ranked(['a'], ['b']), false],
    ['common terms in another order', ranked(['a'], ['b', 'c']), ranked(['a'], ['c', 'b']), false],
    ['a noise plan', ranked(['a']), { kind: 'noise' as const, noise: [{ term: 'a', docFreq: 1 }] }, false],
    ['two empty plans', { kind: 'empty' as const }, { kind: 'empty' as const }, false],
  ])('%s: %j', (_, a, b, same) => {
    expect(samePlan(a, b)).toBe(same)
    expect(samePlan(b, a)).toBe(same)
  })
})
