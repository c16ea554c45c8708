import { describe, expect, it } from 'vitest'
import { progressLine } from './cli-client.js'

const base = { full: true, reason: 'api', startedAt: '2026-11-23T00:00:00.000Z', chunksEmbedded: 0, chunksToEmbed: 0 }

describe('progressLine', () => {
  it.each([
    [{ ...base, phase: 'scanning', filesDone: 0, filesTotal: 0 }, '[..........] scanning 0/0 files'],
    [{ ...base, phase: 'indexing', filesDone: 5, filesTotal: 20 }, '[###.......] indexing 5/20 files'],
    [
      { ...base, phase: 'embedding', filesDone: 20, filesTotal: 20, chunksEmbedded: 40, chunksToEmbed: 90 },
      '[##########] embedding 20/20 files, 40/90 chunks embedded',
    ],
  ] as const)('%j → %s', (progress, line) => {
    expect(progressLine(progress, 10)).toBe(line)
  })
})
