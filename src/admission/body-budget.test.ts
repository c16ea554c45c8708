import { describe, expect, it } from 'vitest'
import { createBodyBudget, declaredBodyBytes } from './body-budget.js'

describe('createBodyBudget', () => {
  it('reserves until the limit, refuses what does not fit, and frees each reservation once', () => {
    const budget = createBodyBudget(100)
    const a = budget.tryReserve(60)
    expect(a).not.toBeNull()
    expect(budget.tryReserve(41)).toBeNull()
    const b = budget.tryReserve(40)
    expect(budget.inFlight()).toBe(100)
    expect(budget.tryReserve(0)).not.toBeNull()
    a?.()
    a?.()
    expect(budget.inFlight()).toBe(40)
    b?.()
    expect(budget.inFlight()).toBe(0)
  })
})

describe('declaredBodyBytes', () => {
  it.each([
    { headers: { 'content-length': '1234' }, expected: { bytes: 1234, known: true } },
    { headers: { 'content-length': '0' }, expected: { bytes: 0, known: true } },
    { headers: { 'transfer-encoding': 'chunked' }, expected: { bytes: 500, known: false } },
    { headers: {}, expected: { bytes: 0, known: true } },
    { headers: { 'content-length': '-1' }, expected: null },
    { headers: { 'content-length': '12abc' }, expected: null },
  ])('$headers → $expected', ({ headers, expected }) => {
    expect(declaredBodyBytes(headers, 500)).toEqual(expected)
  })
})
