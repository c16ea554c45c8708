import { describe, expect, it } from 'vitest'
import { isAppError } from '../shared/errors.js'
import { foldersOf, planFolders } from './import-folders.js'

const survey = (have: number, maxFolders: number, missing: [string, boolean][]) => ({
  have,
  maxFolders,
  missing: new Map(missing),
})
const files = (...rels: string[]) => rels.map((rel) => ({ rel, entry: `main/${rel}` }))

describe('foldersOf', () => {
  it.each([
    ['MEMORY.md', []],
    ['memory/a.md', ['memory']],
    ['memory/a/b/c.md', ['memory', 'memory/a', 'memory/a/b']],
  ])('%s → %j', (rel, folders) => expect(foldersOf(rel)).toEqual(folders))
})

describe('planFolders', () => {
  it('lists the missing folders once each, in the order the writes make them', () => {
    const s = survey(1, 10, [
      ['memory/b', true],
      ['memory/a', true],
    ])
    expect(planFolders(files('memory/b/1.md', 'memory/x.md', 'memory/a/2.md', 'memory/b/3.md'), s)).toEqual([
      'memory/b',
      'memory/a',
    ])
  })

  it('lets the space reach the cap, and names the first entry that would pass it', () => {
    const missing: [string, boolean][] = [
      ['memory/a', true],
      ['memory/b', true],
      ['memory/c', true],
    ]
    expect(planFolders(files('memory/a/1.md', 'memory/b/2.md'), survey(2, 4, missing))).toHaveLength(2)
    let refused: unknown
    try {
      planFolders(files('memory/a/1.md', 'memory/b/2.md', 'memory/c/3.md'), survey(2, 4, missing))
    } catch (err) {
      refused = err
    }
    expect(isAppError(refused) && { code: refused.code, details: refused.details }).toEqual({
      code: 'FOLDER_LIMIT',
      details: { entry: 'main/memory/c/3.md', maxFolders: 4 },
    })
  })

  it('lets folders the cap does not count be made below it, as the budget does', () => {
    // notes/ holds the extra path notes/keep/: only notes/keep and below count.
    const s = survey(2, 3, [
      ['notes', false],
      ['notes/keep', true],
    ])
    expect(planFolders(files('notes/keep/a.md'), s)).toEqual(['notes', 'notes/keep'])
    expect(() => planFolders(files('notes/keep/a.md'), survey(3, 3, [['notes', false]]))).toThrow(/more than 3/)
  })
})
