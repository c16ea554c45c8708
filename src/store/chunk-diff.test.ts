import { describe, expect, it } from 'vitest'
import { diffChunks, type ChunkIdentity } from './chunk-diff.js'

const chunk = (startLine: number, endLine: number, contentHash: string, status?: 'superseded'): ChunkIdentity => ({
  startLine,
  endLine,
  contentHash,
  entry: status ? { status, observed: null, key: null, origin: null } : null,
})
const row = (id: number, c: ChunkIdentity) => ({ id, ...c })
const hashed = (entryHash: string | null): ChunkIdentity => ({ ...chunk(1, 2, 'a'), entryHash })
const keyed = (key: string): ChunkIdentity => ({
  ...chunk(1, 2, 'a'),
  entry: { status: 'active', observed: null, key, origin: null },
})

describe('diffChunks', () => {
  it.each([
    ['nothing stored', [], [chunk(1, 2, 'a')], [chunk(1, 2, 'a')], []],
    ['unchanged', [row(1, chunk(1, 2, 'a'))], [chunk(1, 2, 'a')], [], []],
    ['appended', [row(1, chunk(1, 2, 'a'))], [chunk(1, 2, 'a'), chunk(3, 4, 'b')], [chunk(3, 4, 'b')], []],
    ['changed text', [row(1, chunk(1, 2, 'a'))], [chunk(1, 2, 'b')], [chunk(1, 2, 'b')], [1]],
    ['moved lines', [row(1, chunk(1, 2, 'a'))], [chunk(2, 3, 'a')], [chunk(2, 3, 'a')], [1]],
    ['emptied', [row(1, chunk(1, 2, 'a')), row(2, chunk(3, 3, 'b'))], [], [], [1, 2]],
    // Equal chunks (pieces of one repetitive line): one row each, none left behind.
    [
      'equal chunks kept',
      [row(1, chunk(5, 5, 'p')), row(2, chunk(5, 5, 'p'))],
      [chunk(5, 5, 'p'), chunk(5, 5, 'p')],
      [],
      [],
    ],
    ['an equal chunk more', [row(1, chunk(5, 5, 'p'))], [chunk(5, 5, 'p'), chunk(5, 5, 'p')], [chunk(5, 5, 'p')], []],
    // The same text under another status: superseded in place, the row is written again.
    [
      'superseded in place',
      [row(1, chunk(1, 2, 'a'))],
      [chunk(1, 2, 'a', 'superseded')],
      [chunk(1, 2, 'a', 'superseded')],
      [1],
    ],
    ['an equal chunk less', [row(1, chunk(5, 5, 'p')), row(2, chunk(5, 5, 'p'))], [chunk(5, 5, 'p')], [], [2]],
    // The same text in an entry of other text (its entry grew): written again.
    ['entry hash changed', [row(1, hashed('e1'))], [hashed('e2')], [hashed('e2')], [1]],
    ['entry hash gone', [row(1, hashed('e1'))], [hashed(null)], [hashed(null)], [1]],
    // No hash, stored as NULL or never set, is the same row.
    ['no entry hash either way', [row(1, hashed(null))], [chunk(1, 2, 'a')], [], []],
    ['another key', [row(1, keyed('db'))], [keyed('cache')], [keyed('cache')], [1]],
  ])('%s', (_, stored, chunks, added, removed) => {
    const diff = diffChunks(stored, (r) => r, chunks)
    expect(diff.added).toEqual(added)
    expect(diff.removed.map((r) => r.id)).toEqual(removed)
  })
})
