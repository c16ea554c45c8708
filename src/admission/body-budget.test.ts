import { describe, expect, it } from 'vitest'
import { createBodyBudget, declaredBody } from './body-budget.js'

describe('createBodyBudget', () => {
  it('holds bytes as they are taken, up to the agent’s share and the process’s limit', () => {
    const budget = createBodyBudget({ limitBytes: 100, agentShareBytes: 50 })
    const a1 = budget.open('a')
    const a2 = budget.open('a')
    expect(a1.take(30)).toBeNull()
    expect(a2.take(21)).toBe('agent')
    expect(a2.take(20)).toBeNull()
    expect(budget.heldBy('a')).toBe(50)
    expect(a1.take(1)).toBe('agent')
    // Another agent has the rest of the process's limit, and no more.
    const b = budget.open('b')
    expect(b.take(50)).toBeNull()
    const c = budget.open('c')
    expect(c.take(1)).toBe('process')
    expect(c.take(0)).toBeNull()
    expect(budget.inFlight()).toBe(100)
    expect(budget.refusal('c', 1)).toBe('process')
    expect(budget.refusal('a', 1)).toBe('agent')
  })

  it('gives back all a body holds once, however often released, and holds nothing after', () => {
    const budget = createBodyBudget({ limitBytes: 100, agentShareBytes: 50 })
    const a1 = budget.open('a')
    const a2 = budget.open('a')
    a1.take(10)
    a1.take(20)
    a2.take(5)
    a1.release()
    a1.release()
    expect(budget.inFlight()).toBe(5)
    expect(budget.heldBy('a')).toBe(5)
    expect(a1.take(10)).toBeNull()
    expect(budget.inFlight()).toBe(5)
    a2.release()
    expect(budget.inFlight()).toBe(0)
    expect(budget.heldBy('a')).toBe(0)
  })
})

describe('declaredBody', () => {
  it.each([
    { headers: { 'content-length': '1234' }, expected: { kind: 'sized', bytes: 1234 } },
    { headers: { 'content-length': '0' }, expected: { kind: 'none' } },
    { headers: { 'transfer-encoding': 'chunked' }, expected: { kind: 'chunked' } },
    { headers: {}, expected: { kind: 'none' } },
    { headers: { 'content-length': '-1' }, expected: null },
    { headers: { 'content-length': '12abc' }, expected: null },
  ])('$headers → $expected', ({ headers, expected }) => {
    expect(declaredBody(headers)).toEqual(expected)
  })
})
