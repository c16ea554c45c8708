import { describe, expect, it } from 'vitest'
import { dayOfPath, decayFactor } from './recency.js'

const NOW = Date.parse('2026-03-31T15:00:00Z')

describe('dayOfPath', () => {
  it.each([
    ['memory/2026-03-01.md', Date.parse('2026-03-01T00:00:00Z')],
    ['memory/2026-03-01-standup.md', Date.parse('2026-03-01T00:00:00Z')],
    ['team/memory/2026-03-01.md', Date.parse('2026-03-01T00:00:00Z')],
    ['MEMORY.md', null],
    ['memory/projects/2026-03-01.md', null],
    ['memory/notes.md', null],
    ['memory/2026-13-45.md', null],
    ['sessions/2026-03-01.md', null],
  ])('%s → %s', (p, day) => {
    expect(dayOfPath(p)).toBe(day)
  })
})

describe('decayFactor', () => {
  it.each([
    // path, halfLifeDays, factor
    ['memory/2026-03-31.md', 30, 1],
    ['memory/2026-03-01.md', 30, 0.5],
    ['memory/2026-01-30.md', 30, 0.25],
    ['memory/2026-03-01.md', 0, 1],
    ['memory/2027-01-01.md', 30, 1],
    ['MEMORY.md', 1, 1],
    ['memory/projects/search.md', 1, 1],
  ])('%s, half-life %d days → %f', (p, halfLife, factor) => {
    expect(decayFactor(p, NOW, halfLife)).toBeCloseTo(factor, 12)
  })

  it('falls with age and stays in (0, 1]', () => {
    let previous = 1
    for (let day = 30; day >= 1; day--) {
      const f = decayFactor(`memory/2026-03-${String(day).padStart(2, '0')}.md`, NOW, 7)
      expect(f).toBeLessThanOrEqual(1)
      expect(f).toBeGreaterThan(0)
      expect(f).toBeLessThanOrEqual(previous)
      previous = f
    }
  })
})
