import { describe, expect, it } from 'vitest'
import { globalChunkId, spacePathPrefix } from './search-spaces.js'

describe('spacePathPrefix', () => {
  it.each([
    [undefined, '', { pathPrefix: undefined }],
    ['memory/', '', { pathPrefix: 'memory/' }],
    [undefined, 'team/', { pathPrefix: undefined }],
    ['team/memory/', 'team/', { pathPrefix: 'memory/' }],
    ['team/', 'team/', { pathPrefix: undefined }],
    ['team', 'team/', { pathPrefix: undefined }],
    ['te', 'team/', { pathPrefix: undefined }],
    ['memory/', 'team/', null],
    ['MEMORY.md', 'team/', null],
    ['teamwork/', 'team/', null],
  ])('%j in a space shown under %j → %j', (requested, prefix, expected) => {
    expect(spacePathPrefix(requested, prefix)).toEqual(expected)
  })
})

describe('globalChunkId', () => {
  it('keeps ids of different spaces apart and the order within a space', () => {
    const ids = [1, 2, 3].flatMap((id) => [0, 1].map((space) => globalChunkId(id, space)))
    expect(new Set(ids).size).toBe(6)
    expect(globalChunkId(1, 0) < globalChunkId(2, 0)).toBe(true)
    expect(globalChunkId(7, 1) % 4).toBe(1)
  })
})
