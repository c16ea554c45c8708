import { describe, expect, it } from 'vitest'
import { entryOf, entryParams } from './entry-columns.js'

describe('entry columns of the SQLite index', () => {
  it('passes the entry filters as parameters', () => {
    expect(entryParams({})).toEqual({ includeSuperseded: 0, origins: null })
    expect(entryParams({ includeSuperseded: true, origins: ['owner', 'agent'] })).toEqual({
      includeSuperseded: 1,
      origins: '["owner","agent"]',
    })
  })

  it('reads a row without an entry as none, and one with as its entry', () => {
    const none = { entryStatus: null, entryObserved: null, entryKey: null, entryOrigin: null }
    expect(entryOf(none)).toBeNull()
    expect(entryOf({ ...none, entryStatus: 'active', entryKey: 'k' })).toEqual({
      status: 'active',
      observed: null,
      key: 'k',
      origin: null,
    })
  })
})
