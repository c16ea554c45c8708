import { describe, expect, it } from 'vitest'
import { createTopImpacts } from './top-impacts.js'

const none = { floor: 0, postings: [] }

describe('createTopImpacts', () => {
  it.each([
    // [keep, impacts offered (ids 1, 2, …), ids kept best first, floor]
    [3, [0.5, 0.9, 0.1, 0.7], [2, 4, 1], 0.1],
    [3, [0.5, 0.9], [2, 1], 0],
    [2, [0.3, 0.3, 0.3], [1, 2], 0.3],
    [2, [0.1, 0.2, 0.3, 0.4, 0.5], [5, 4], 0.3],
    [1, [0.4, 0.8, 0.6], [2], 0.6],
  ])('keeps the best %i of %j', (keep, impacts, ids, floor) => {
    const top = createTopImpacts(keep, none)
    impacts.forEach((impact, i) => top.add(i + 1, impact))
    const { postings, floor: got } = top.result()
    expect(postings.map((p) => p.id)).toEqual(ids)
    expect(got).toBe(floor)
  })

  it('never has a posting left out above its floor', () => {
    const impacts = Array.from({ length: 500 }, (_, i) => ((i * 7919) % 1000) / 1000)
    const top = createTopImpacts(16, none)
    impacts.forEach((impact, i) => top.add(i, impact))
    const { postings, floor } = top.result()
    const kept = new Set(postings.map((p) => p.id))
    for (const [i, impact] of impacts.entries()) if (!kept.has(i)) expect(impact).toBeLessThanOrEqual(floor)
    expect(Math.min(...postings.map((p) => p.impact))).toBeGreaterThanOrEqual(floor)
  })

  it('starts from a stored list and its floor, which only rises', () => {
    const top = createTopImpacts(2, { floor: 0.4, postings: [{ id: 1, impact: 0.9 }] })
    top.add(2, 0.2)
    expect(top.result()).toEqual({
      floor: 0.4,
      postings: [
        { id: 1, impact: 0.9 },
        { id: 2, impact: 0.2 },
      ],
    })
    top.add(3, 0.5)
    expect(top.result().floor).toBe(0.4)
    expect(top.result().postings.map((p) => p.id)).toEqual([1, 3])
  })
})
