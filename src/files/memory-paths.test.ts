import { describe, expect, it } from 'vitest'
import { createMemoryPaths } from './memory-paths.js'

describe('memory paths', () => {
  const paths = createMemoryPaths({ extraPaths: ['notes', 'docs/decisions.txt'] })

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

  const writableExtras = createMemoryPaths({
    extraPaths: ['notes', 'docs/decisions.txt', 'docs/plan.md'],
    extraPathsWritable: true,
    sessions: true,
  })

  const readOnly = createMemoryPaths({ extraPaths: [], readOnly: true })

  it.each([
    [readOnly, 'MEMORY.md', { kind: 'memory', writable: false }],
    [readOnly, 'memory/2026-03-01.md', { kind: 'memory', writable: false }],
    [paths, 'MEMORY.md', { kind: 'memory', writable: true }],
    [paths, 'memory/2026-02-16.md', { kind: 'memory', writable: true }],
    [paths, 'notes/idea.md', { kind: 'memory', writable: false }],
    [paths, 'README.md', { kind: 'none' }],
    // Without a sessions folder, sessions/ is an ordinary (non-source) path.
    [paths, 'sessions/a.jsonl', { kind: 'none' }],
    [writableExtras, 'notes/idea.md', { kind: 'memory', writable: true }],
    [writableExtras, 'docs/plan.md', { kind: 'memory', writable: true }],
    // Extra paths that are not markdown stay read-only even when extras are writable.
    [writableExtras, 'docs/decisions.txt', { kind: 'memory', writable: false }],
    [writableExtras, 'sessions/2026/a.jsonl', { kind: 'sessions', inner: '2026/a.jsonl' }],
    [writableExtras, 'sessions/a.JSONL', { kind: 'sessions', inner: 'a.JSONL' }],
    [writableExtras, 'sessions/a.md', { kind: 'none' }],
    [writableExtras, 'sessions/.tmp/a.jsonl', { kind: 'none' }],
    [writableExtras, 'sessions/', { kind: 'none' }],
  ])('classifies case %#', (p, rel, expected) => {
    expect(p.classify(rel)).toEqual(expected)
  })
})
