import { describe, expect, it } from 'vitest'
import { fts5Rank } from './fts5-bm25.js'
import { encodePostings } from './rare-postings.js'
import { byRank, createRareRanker, restInOrder } from './rare-rank.js'

describe('rare ranker', () => {
  it("sums each chunk's parts term by term, as FTS5 does, and keeps the best in rank order, equal ranks by id", () => {
    const ranker = createRareRanker()
    // Two terms; chunks 7 and 3 hold the same counts (equal ranks), 5000 grows the arrays.
    const parts = [
      {
        idf: 2.5,
        postings: [
          [3, 1, 0, 10],
          [7, 1, 0, 10],
          [9, 0, 1, 40],
          [5000, 2, 0, 8],
        ],
      },
      {
        idf: 0.7,
        postings: [
          [3, 1, 1, 10],
          [7, 1, 1, 10],
          [12, 3, 0, 20],
        ],
      },
    ]
    for (const { idf, postings } of parts)
      for (const [id, body, heading, tokens] of postings as [number, number, number, number][])
        ranker.add(id, idf, body, heading, 2, tokens, 12.5)
    expect(ranker.size()).toBe(5)
    const expected = (id: number) => {
      let rank = 0
      for (const { idf, postings } of parts) {
        const p = postings.find((x) => x[0] === id)
        if (p) rank += fts5Rank(idf, p[1] as number, p[2] as number, 2, p[3] as number, 12.5)
      }
      return { id, rank }
    }
    const all = [3, 7, 9, 12, 5000].map(expected).sort(byRank)
    const taken = ranker.take(3)
    expect(taken.best).toEqual(all.slice(0, 3))
    expect(taken.best[0]?.rank).toBe(taken.best[1]?.rank)
    expect(taken.best.map((r) => r.id).slice(0, 2)).toEqual([3, 7])
    expect(restInOrder(taken)).toEqual(all.slice(3))
    // The sums start again from nothing.
    expect(ranker.size()).toBe(0)
    ranker.add(9, 1, 1, 0, 2, 10, 10)
    expect(ranker.take(5)).toEqual({
      best: [{ id: 9, rank: fts5Rank(1, 1, 0, 2, 10, 10) }],
      restIds: [],
      restRanks: [],
    })
  })

  it.each([0, 1, 2, 10])('keeps the best %i and hands back every other chunk', (first) => {
    const ranker = createRareRanker()
    for (let id = 1; id <= 6; id++) ranker.add(id, 1 + (id % 3), 1, 0, 2, 10, 10)
    const taken = ranker.take(first)
    expect(taken.best.length).toBe(Math.min(first, 6))
    expect(taken.best.length + taken.restIds.length).toBe(6)
    const rest = restInOrder(taken)
    expect([...taken.best, ...rest]).toEqual([...taken.best, ...rest].sort(byRank))
  })

  it("ranks a list's blob as it ranks its postings one by one", () => {
    const postings = [
      { id: 2, body: 1, heading: 0, tokens: 30 },
      { id: 300, body: 0, heading: 2, tokens: 200 },
      { id: 301, body: 4, heading: 1, tokens: 12 },
    ]
    const fromBlob = createRareRanker()
    fromBlob.addList(encodePostings(postings), 1.7, 2, 40)
    const oneByOne = createRareRanker()
    for (const p of postings) oneByOne.add(p.id, 1.7, p.body, p.heading, 2, p.tokens, 40)
    expect(fromBlob.take(10)).toEqual(oneByOne.take(10))
  })
})
