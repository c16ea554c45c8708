import { describe, expect, it } from 'vitest'
import { dateRangeOf, parseDateBound } from './date-range.js'

describe('parseDateBound', () => {
  it.each([
    ['2026-03-01', new Date(2026, 2, 1).getTime()],
    ['2026-03-01T09:30', new Date(2026, 2, 1, 9, 30).getTime()],
    ['2026-03-01T09:30:15.250', new Date(2026, 2, 1, 9, 30, 15, 250).getTime()],
    ['2026-03-01T09:30:00Z', Date.UTC(2026, 2, 1, 9, 30)],
    ['2026-03-01T09:30:00+08:00', Date.UTC(2026, 2, 1, 1, 30)],
    ['2026-02-30', null],
    ['2026-3-1', null],
    ['yesterday', null],
    ['2026-03-01 09:30', null],
    ['1710000000000', null],
    ['', null],
  ])('%j → %s', (text, at) => {
    expect(parseDateBound(text)).toBe(at)
  })
})

describe('dateRangeOf', () => {
  it('is undefined when the request names no range', () => {
    expect(dateRangeOf({})).toBeUndefined()
  })

  it('keeps open ends open and carries datedOnly', () => {
    expect(dateRangeOf({ after: '2026-03-01' })).toEqual({
      afterMs: new Date(2026, 2, 1).getTime(),
      beforeMs: undefined,
      datedOnly: false,
    })
    expect(dateRangeOf({ datedOnly: true })).toEqual({ afterMs: undefined, beforeMs: undefined, datedOnly: true })
  })

  it.each([
    [{ after: 'last week' }, /"after" must be an ISO date/],
    [{ before: '2026-02-30' }, /"before" must be an ISO date/],
    [{ after: '2026-03-02', before: '2026-03-01' }, /earlier than/],
    [{ after: '2026-03-01', before: '2026-03-01' }, /earlier than/],
  ])('refuses %j', (req, message) => {
    expect(() => dateRangeOf(req)).toThrow(message)
  })
})
