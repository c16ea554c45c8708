import { describe, expect, it } from 'vitest'
import { isRetryableStatus, MAX_BACKOFF_MS, parseRetryAfter, retryDelayMs } from './retry-policy.js'

const NOW = Date.parse('2026-11-21T12:00:00Z')

describe('retry policy', () => {
  it.each([
    [408, true],
    [429, true],
    [500, true],
    [502, true],
    [503, true],
    [501, false],
    [400, false],
    [401, false],
    [404, false],
    [422, false],
  ])('status %i is retryable: %j', (status, retryable) => {
    expect(isRetryableStatus(status)).toBe(retryable)
  })

  it.each([
    [null, null],
    ['', null],
    ['3', 3000],
    ['0', 0],
    ['1.5', 1500],
    ['Sat, 21 Nov 2026 12:00:10 GMT', 10_000],
    ['Sat, 21 Nov 2026 11:59:00 GMT', 0],
    ['soon', null],
  ])('Retry-After %j means %j ms', (header, ms) => {
    expect(parseRetryAfter(header, NOW)).toBe(ms)
  })

  it.each([
    [0, 3, null, 0.5, 250],
    [1, 3, null, 0.5, 500],
    [2, 3, null, 0.999, 1998],
    [3, 3, null, 0.5, null],
    [9, 20, null, 1, MAX_BACKOFF_MS],
    [0, 3, 2000, 0.5, 2000],
    [0, 3, 61_000, 0.5, null],
    [0, 0, 10, 0.5, null],
  ])('attempt %i of %i, Retry-After %j, random %f → %j ms', (attempt, maxRetries, retryAfterMs, random, delay) => {
    expect(retryDelayMs({ attempt, maxRetries, retryAfterMs, random })).toBe(delay)
  })
})
