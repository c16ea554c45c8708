import { describe, expect, it } from 'vitest'
import { createTermStats } from './term-stats.js'

/** Reads whose generation and content version the test moves, counting the statistics read. */
function counted() {
  const state = { generation: 1, content: '1:0', docFreqReads: 0, rowsReads: 0 }
  const stats = createTermStats({
    generation: () => state.generation,
    contentVersion: () => state.content,
    docFreq: () => {
      state.docFreqReads++
      return 7
    },
    rows: () => {
      state.rowsReads++
      return 100
    },
    partial: () => false,
  })
  return { state, stats }
}

describe('term statistics', () => {
  it.each([
    { change: 'nothing committed', generation: 1, content: '1:0', reread: false },
    { change: 'a commit that wrote no chunk (the upkeep)', generation: 2, content: '1:0', reread: false },
    { change: 'a commit that wrote chunks', generation: 2, content: '1:1', reread: true },
    { change: 'a swap to another index', generation: 2, content: '2:0', reread: true },
  ])('after $change, are read again: $reread', ({ generation, content, reread }) => {
    const { state, stats } = counted()
    expect(stats.keywordStats(['walru', 'tusk'])).toEqual({ docFreqs: [7, 7], rows: 100, partial: false })
    state.generation = generation
    state.content = content
    stats.keywordStats(['walru', 'tusk'])
    expect(state.docFreqReads).toBe(reread ? 4 : 2)
    expect(state.rowsReads).toBe(reread ? 2 : 1)
  })

  it('asks for the content version only when the generation moved', () => {
    const reads = { generation: 1, asked: 0 }
    const stats = createTermStats({
      generation: () => reads.generation,
      contentVersion: () => {
        reads.asked++
        return '1:0'
      },
      docFreq: () => 1,
      rows: () => 1,
      partial: () => false,
    })
    for (let i = 0; i < 5; i++) stats.keywordStats(['walru'])
    expect(reads.asked).toBe(1)
    reads.generation = 2
    stats.keywordStats(['walru'])
    expect(reads.asked).toBe(2)
  })
})
