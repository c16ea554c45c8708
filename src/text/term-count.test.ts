import { describe, expect, it } from 'vitest'
import { columnCounts, countTerm, createTermCounter } from './term-count.js'

describe('countTerm', () => {
  it.each([
    ['a b a c a', 'a', 3],
    ['qwen qwen_max max', 'qwen', 1],
    ['qwen_max qwen', 'max', 0],
    ['模型 型升 升级 模 型', '型', 1],
    ['', 'a', 0],
    ['abc', 'abc', 1],
    // A newline ends a line's terms (line-terms.ts) and separates terms as a space does.
    ['a b\na\n\nc a', 'a', 3],
    ['qwen_max\nqwen\nmax', 'qwen', 1],
    ['max\n', 'max', 1],
  ])('counts %j in %j', (terms, term, n) => {
    expect(countTerm(terms, term)).toBe(n)
  })
})

describe('columnCounts', () => {
  it.each([
    [
      'a b a',
      'b c',
      undefined,
      [
        ['a', [2, 0]],
        ['b', [1, 1]],
        ['c', [0, 1]],
      ],
    ],
    ['', '', undefined, []],
    [
      'a b a',
      '',
      undefined,
      [
        ['a', [2, 0]],
        ['b', [1, 0]],
      ],
    ],
    [
      'a b a',
      'b c',
      (t: string) => t !== 'b',
      [
        ['a', [2, 0]],
        ['c', [0, 1]],
      ],
    ],
  ])('counts %j and %j', (body, heading, wanted, counts) => {
    expect([...columnCounts(body, heading, wanted)]).toEqual(counts)
  })
})

describe('a term counter', () => {
  /** What the counter hands over for one chunk, as [term, [body, heading]]. */
  const counted = (terms: string[], body: string, heading: string, bucket?: (hash: number) => number) => {
    const out: [string, [number, number]][] = []
    createTermCounter(terms, bucket).count(body, heading, (t, b, h) => out.push([terms[t] as string, [b, h]]))
    return out
  }
  const cases: [string, string[], string, string][] = [
    ['every column and repeats', ['a', 'b', 'c'], 'a b a', 'b c'],
    ['terms that are prefixes of others', ['qwen', 'max', 'qwen_max'], 'qwen qwen_max max qwenx', 'maxi qwen'],
    ['terms not in the set', ['walru'], 'walru tusk walrus', 'walru'],
    ['empty strings', ['a'], '', ''],
    ['empty terms between spaces', ['a'], ' a  a ', ''],
    ['terms by line', ['a', 'b', 'ab'], 'a b\nab\n\nb a\n', 'b'],
    ['Chinese pairs and characters', ['模型', '型', '升级'], '模型 型升 升级 模 型', '模型'],
    ['a term outside the Basic Multilingual Plane', ['𠮷野', '野'], '𠮷野 野 𠮷', '野'],
  ]

  it.each(cases)('counts as columnCounts does: %s', (_, terms, body, heading) => {
    const wanted = new Set(terms)
    expect(counted(terms, body, heading)).toEqual([...columnCounts(body, heading, (t) => wanted.has(t))])
  })

  it.each(cases)('counts the same when every hash collides: %s', (_, terms, body, heading) => {
    expect(counted(terms, body, heading, () => 0)).toEqual(counted(terms, body, heading))
  })

  it('counts a term named twice at its first index', () => {
    expect(counted(['a', 'b', 'a'], 'a b a', 'a')).toEqual([
      ['a', [2, 1]],
      ['b', [1, 0]],
    ])
    expect(counted(['a', 'b', 'a'], 'a b a', 'a', () => 0)).toEqual(counted(['a', 'b', 'a'], 'a b a', 'a'))
  })

  it('finds every term of a set bigger than its first table', () => {
    const terms = Array.from({ length: 40 }, (_, i) => `t${i}`)
    const body = terms.filter((_, i) => i % 3 === 0).join(' ')
    expect(counted(terms, body, 't38').map(([t]) => t)).toEqual([...terms.filter((_, i) => i % 3 === 0), 't38'])
  })

  it('starts each chunk from nothing', () => {
    const terms = ['a', 'b']
    const counter = createTermCounter(terms)
    const seen: string[] = []
    for (const [body, heading] of [
      ['a a b', 'b'],
      ['b', ''],
      ['', 'a'],
    ])
      counter.count(body as string, heading as string, (t, b, h) => seen.push(`${terms[t]}:${b},${h}`))
    expect(seen).toEqual(['a:2,0', 'b:1,1', 'b:1,0', 'a:0,1'])
  })
})
