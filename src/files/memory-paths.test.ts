import { describe, expect, it } from 'vitest'
import { createMemoryPaths } from './memory-paths.js'

describe('memory paths', () => {
  const paths = createMemoryPaths(['notes', 'docs/decisions.txt'])

  it.each([
    ['MEMORY.md', true],
    ['memory/2026-02-16.md', true],
    ['memory/projects/deep/x.md', true],
    ['memory/x.MD', true],
    ['notes/idea.md', true],
    ['docs/decisions.txt', true],
    ['memory.md', false],
    ['README.md', false],
    ['memory/x.txt', false],
    ['memory/.obsidian/x.md', false],
    ['memory/.hidden.md', false],
    ['docs/other.md', false],
    // A file may be named as an extra path, so the bare name counts; a folder there is
    // refused later because it is not a regular file.
    ['notes', true],
    ['memoryx/a.md', false],
  ])('%j is a source: %j', (rel, expected) => {
    expect(paths.isSource(rel)).toBe(expected)
  })

  it('scans MEMORY.md, memory/ and the extra paths', () => {
    expect(paths.scanRoots()).toEqual(['MEMORY.md', 'memory', 'notes', 'docs/decisions.txt'])
  })
})
