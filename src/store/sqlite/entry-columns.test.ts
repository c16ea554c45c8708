import { describe, expect, it } from 'vitest'
import { entryOf, entryTerms, matchWithEntries, SUPERSEDED } from './entry-columns.js'

const TERMS = '"redi" OR "cach"'

describe('entry columns of the SQLite index', () => {
  it.each([
    // [filters, index holds superseded chunks, MATCH]
    [{}, false, TERMS],
    [{ includeSuperseded: true }, true, TERMS],
    [{}, true, `({body_terms heading_terms} : (${TERMS})) NOT entry_terms : "${SUPERSEDED}"`],
    [
      { origins: ['owner', 'agent'] as const },
      false,
      `({body_terms heading_terms} : (${TERMS})) AND entry_terms : ("\uE000origin_owner" OR "\uE000origin_agent")`,
    ],
    [
      { origins: ['untrusted'] as const },
      true,
      `({body_terms heading_terms} : (${TERMS})) AND entry_terms : ("\uE000origin_untrusted") NOT entry_terms : "${SUPERSEDED}"`,
    ],
  ])('matches %j (superseded in the index: %s)', (filters, anySuperseded, expected) => {
    expect(matchWithEntries(TERMS, filters, anySuperseded)).toBe(expected)
  })

  it('indexes the status only when superseded, and the origin when given', () => {
    expect(entryTerms(null)).toBe('')
    expect(entryTerms({ status: 'active', observed: '2026-01-01', key: 'k', origin: null })).toBe('')
    expect(entryTerms({ status: 'superseded', observed: null, key: null, origin: 'system' })).toBe(
      `${SUPERSEDED} \uE000origin_system`,
    )
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
