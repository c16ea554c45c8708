import { describe, expect, it } from 'vitest'
import { createDocFreqMemo } from './doc-freq-memo.js'

const read = (rows: number, ...docFreqs: number[]) => ({ rows, docFreqs, partial: false })

describe('document frequencies remembered', () => {
  it('guesses only when every term was read, with the last statistics read', () => {
    const memo = createDocFreqMemo()
    expect(memo.guess(['a'])).toBeUndefined()
    memo.remember(['a', 'b'], read(100, 3, 0))
    expect(memo.guess(['b', 'a'])).toEqual(read(100, 0, 3))
    expect(memo.guess(['a', 'c'])).toBeUndefined()
    memo.remember(['a', 'c'], read(120, 5, 7))
    expect(memo.guess(['a', 'b', 'c'])).toEqual(read(120, 5, 0, 7))
  })

  it('does not remember statistics of a change half written', () => {
    const memo = createDocFreqMemo()
    memo.remember(['a'], { ...read(100, 3), partial: true })
    expect(memo.guess(['a'])).toBeUndefined()
  })

  it('forgets the term used longest ago first', () => {
    const memo = createDocFreqMemo(2)
    memo.remember(['a', 'b'], read(10, 1, 2))
    memo.remember(['a'], read(10, 1))
    memo.remember(['c'], read(10, 3))
    expect(memo.guess(['b'])).toBeUndefined()
    expect(memo.guess(['a', 'c'])).toEqual(read(10, 1, 3))
    // A guess uses its terms too: c, then a, so b pushes c out.
    memo.guess(['c'])
    memo.guess(['a'])
    memo.remember(['b'], read(10, 2))
    expect(memo.guess(['c'])).toBeUndefined()
    expect(memo.guess(['a', 'b'])).toEqual(read(10, 1, 2))
  })
})
