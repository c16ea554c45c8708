import { describe, expect, it } from 'vitest'
import { formatEntryMeta, isIsoDate, isValidKey, parseEntryMeta, type EntryMeta } from './entry-meta.js'

const meta = (fields: Partial<EntryMeta>): EntryMeta => ({
  status: 'active',
  observed: null,
  key: null,
  origin: null,
  extra: [],
  ...fields,
})

describe('entry metadata', () => {
  it.each([
    // [line, what it is]
    [
      '<!-- observed: 2026-05-10 | status: superseded -->',
      { kind: 'meta', meta: meta({ status: 'superseded', observed: '2026-05-10' }) },
    ],
    [
      '<!-- observed: 2026-07-27 | status: active | key: reply-style | origin: agent -->',
      { kind: 'meta', meta: meta({ observed: '2026-07-27', key: 'reply-style', origin: 'agent' }) },
    ],
    // Any subset, any order; status defaults to active.
    ['<!-- origin: owner -->', { kind: 'meta', meta: meta({ origin: 'owner' }) }],
    [
      '  <!--key: db host|status: superseded-->',
      { kind: 'meta', meta: meta({ key: 'db host', status: 'superseded' }) },
    ],
    [
      '<!--key: db host | status: superseded-->',
      { kind: 'meta', meta: meta({ key: 'db host', status: 'superseded' }) },
    ],
    // Unknown fields are kept, in order; names are read case-blind.
    [
      '<!-- Status: active | source: slack | confidence: 0.8 -->',
      {
        kind: 'meta',
        meta: meta({
          extra: [
            ['source', 'slack'],
            ['confidence', '0.8'],
          ],
        }),
      },
    ],
    // Not metadata: no known field, not a comment of its own line, a flush marker, text.
    ['<!-- TODO: check this -->', { kind: 'none' }],
    ['<!-- mnemo:flush id=s-1 lines=2 -->', { kind: 'none' }],
    ['- keep <!-- status: active --> inline', { kind: 'none' }],
    ['- a plain note about status: active', { kind: 'none' }],
    ['<!-- just a comment -->', { kind: 'none' }],
  ] as const)('reads %j', (line, expected) => {
    expect(parseEntryMeta(line)).toEqual(expected)
  })

  it.each([
    ['<!-- status: maybe -->', /status "maybe"/],
    ['<!-- observed: last week | status: active -->', /observed "last week"/],
    ['<!-- observed: 2026-02-30 -->', /observed "2026-02-30"/],
    ['<!-- origin: admin -->', /origin "admin"/],
    ['<!-- key: | status: active -->', /key/],
    ['<!-- status: active | status: superseded -->', /given twice/],
    [`<!-- key: ${'k'.repeat(201)} -->`, /key/],
  ])('calls %j malformed', (line, reason) => {
    const parsed = parseEntryMeta(line)
    expect(parsed.kind).toBe('malformed')
    expect(parsed.kind === 'malformed' && parsed.reason).toMatch(reason)
  })

  it('writes what it reads, unknown fields and all', () => {
    const m = meta({
      status: 'superseded',
      observed: '2026-05-10',
      key: 'reply-style',
      origin: 'untrusted',
      extra: [
        ['source', 'slack'],
        ['note', ''],
      ],
    })
    const line = formatEntryMeta(m)
    expect(line).toBe(
      '<!-- observed: 2026-05-10 | status: superseded | key: reply-style | origin: untrusted | source: slack | note: -->',
    )
    expect(parseEntryMeta(line)).toEqual({ kind: 'meta', meta: m })
    expect(formatEntryMeta(meta({}))).toBe('<!-- status: active -->')
  })

  it('knows calendar dates', () => {
    expect(['2026-02-28', '2024-02-29'].map(isIsoDate)).toEqual([true, true])
    expect(['2025-02-29', '2026-13-01', '26-01-01', '2026-1-1'].map(isIsoDate)).toEqual([false, false, false, false])
  })

  it('takes keys that read back the same, and no control or line-separator character', () => {
    expect(['db host', 'reply-style', '数据库'].map(isValidKey)).toEqual([true, true, true])
    expect(
      ['', ' x', 'a | b', 'a --> b', 'a\nb', 'k\u0000', 'x\u2028y', 'x\u0085y', 'x'.repeat(201)].map(isValidKey),
    ).toEqual(Array(9).fill(false))
    // A comment holding U+2028 is still read as the metadata it is (never as plain text).
    expect(parseEntryMeta('<!-- status: active | extra: a\u2028b -->').kind).toBe('meta')
  })
})
