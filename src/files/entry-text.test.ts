import { describe, expect, it } from 'vitest'
import { entryAt, entryTextHash, removeSession, retireKey, scanEntries, supersedeInText } from './entry-text.js'

const CURATED = [
  '# Preferences', // 1
  '', // 2
  '<!-- observed: 2026-05-10 | status: active | key: reply-style -->', // 3
  '- Prefer detailed explanations.', // 4
  '', // 5
  '<!-- observed: 2026-06-01 | origin: owner -->', // 6
  '- Deploys happen on Fridays.', // 7
  '  and never after 16:00', // 8
  '', // 9
  '## Plain', // 10
  'Tabs over spaces.', // 11
  '',
].join('\n')

const DAY = [
  '## 09:00:00 · agent main · session s1', // 1
  '<!-- mnemo:flush id=f1 lines=2 -->', // 2
  '- alpha', // 3
  '- beta', // 4
  '', // 5
  '## 10:00:00 · agent main · session s2', // 6
  '<!-- observed: 2026-11-28 | status: active | origin: agent -->', // 7
  '- gamma', // 8
  '', // 9
  '## 11:00:00 · agent main · session s1', // 10
  '- delta', // 11
  '### detail', // 12
  'inside', // 13
  '',
].join('\n')

describe('scanEntries', () => {
  it('finds metadata entries up to the next comment or heading, and nothing in plain text', () => {
    const { entries, flushes } = scanEntries(CURATED)
    expect(flushes).toEqual([])
    expect(entries.map((e) => [e.startLine, e.endLine, e.meta?.key ?? null, e.body])).toEqual([
      [3, 4, 'reply-style', '- Prefer detailed explanations.'],
      [6, 8, null, '- Deploys happen on Fridays.\n  and never after 16:00'],
    ])
    expect(entries[1]?.hash).toBe(entryTextHash('- Deploys   happen on Fridays. and never after 16:00'))
  })

  it('reads flushes: marked by their marker, unmarked up to the next heading of level 2 or above', () => {
    const { entries, flushes } = scanEntries(DAY)
    expect(flushes.map((f) => [f.startLine, f.endLine, f.session, f.flushId])).toEqual([
      [1, 4, 's1', 'f1'],
      [6, 8, 's2', null],
      [10, 13, 's1', null],
    ])
    expect(entries.map((e) => [e.startLine, e.endLine, e.meta?.origin ?? null, e.flush?.startLine])).toEqual([
      [1, 4, null, 1],
      [7, 8, 'agent', 6],
      [10, 11, null, 10],
    ])
  })

  it('reads no comment or heading inside a code fence', () => {
    const text = '<!-- status: active -->\n```\n<!-- status: superseded -->\n## 09:00:00\n```\n'
    expect(scanEntries(text).entries.map((e) => [e.startLine, e.endLine])).toEqual([[1, 5]])
  })

  it.each([
    ['a day file: its last flush heading', DAY, 10],
    ['a heading of level 3 or one in a fence: none', '# Notes\n### Later\n```\n## 09:00:00\n```\n', 1],
    ['no heading', '<!-- status: active -->\n- a fact\n', null],
  ])('says where a scan may start again: %s', (_, text, restart) => {
    const whole = scanEntries(text)
    expect(whole.restart).toBe(restart)
    if (restart === null) return
    // From there on, the same entries, their lines counted from it.
    const tail = scanEntries(
      text
        .split('\n')
        .slice(restart - 1)
        .join('\n'),
    )
    const shifted = tail.entries.map((e) => ({
      ...e,
      startLine: e.startLine + restart - 1,
      endLine: e.endLine + restart - 1,
    }))
    expect(shifted.map(({ startLine, endLine, hash }) => [startLine, endLine, hash])).toEqual(
      whole.entries
        .filter((e) => e.startLine >= restart)
        .map(({ startLine, endLine, hash }) => [startLine, endLine, hash]),
    )
  })
})

describe('supersedeInText', () => {
  const meta = {
    status: 'active' as const,
    observed: '2026-11-28',
    key: 'reply-style',
    origin: 'agent' as const,
    extra: [],
  }

  it('marks a metadata entry superseded and writes the new one after it', () => {
    const old = entryAt(scanEntries(CURATED).entries, 4, 4)
    expect(old?.startLine).toBe(3)
    const out = supersedeInText(CURATED, old as NonNullable<typeof old>, '- Prefer concise summaries.', meta)
    const lines = out.text.split('\n')
    expect(lines.slice(2, 7)).toEqual([
      '<!-- observed: 2026-05-10 | status: superseded | key: reply-style -->',
      '- Prefer detailed explanations.',
      '',
      '<!-- observed: 2026-11-28 | status: active | key: reply-style | origin: agent -->',
      '- Prefer concise summaries.',
    ])
    expect(out.old).toEqual({ startLine: 3, endLine: 4 })
    expect(out.entry).toEqual({ startLine: 6, endLine: 7 })
    expect(out.text.endsWith('Tabs over spaces.\n')).toBe(true)
  })

  it('gives plain lines a comment of their own and closes off the plain lines after them', () => {
    const text = 'Tabs over spaces.\nUse pnpm.\n'
    const out = supersedeInText(text, { startLine: 1, endLine: 1 }, 'Spaces over tabs.', { ...meta, key: null })
    expect(out.text).toBe(
      '<!-- status: superseded -->\nTabs over spaces.\n\n<!-- observed: 2026-11-28 | status: active | origin: agent -->\n' +
        'Spaces over tabs.\n\n<!-- status: active -->\nUse pnpm.\n',
    )
    expect(out.old).toEqual({ startLine: 1, endLine: 2 })
    expect(out.entry).toEqual({ startLine: 4, endLine: 5 })
    const entries = scanEntries(out.text).entries
    expect(entries.map((e) => e.meta?.status)).toEqual(['superseded', 'active', 'active'])
  })

  it("supersedes a flush's notes under its marker, and writes the new entry after the flush", async () => {
    const old = entryAt(scanEntries(DAY).entries, 3, 4) as NonNullable<ReturnType<typeof entryAt>>
    const out = supersedeInText(DAY, old, '- alpha prime', { ...meta, key: null })
    const again = scanEntries(out.text)
    // The marker counts the comment added under it; the notes under it stay the flush's.
    expect(again.flushes[0]).toMatchObject({ startLine: 1, endLine: 5, markerLines: 3 })
    expect(again.entries.slice(0, 2).map((e) => [e.meta?.status, e.body, e.flush?.startLine ?? null])).toEqual([
      ['superseded', '- alpha\n- beta', 1],
      ['active', '- alpha prime', null],
    ])
    expect(out.entry).toEqual({ startLine: 7, endLine: 8 })
  })

  it('keeps CRLF line breaks, and closes off plain text after a blank line', () => {
    const text = '# Notes\r\nTabs over spaces.\r\n\r\nUse pnpm.\r\n'
    const out = supersedeInText(text, { startLine: 2, endLine: 2 }, 'Spaces.', { ...meta, key: null })
    expect(out.text.split('\r\n').length).toBe(out.text.split('\n').length)
    expect(scanEntries(out.text).entries.map((e) => [e.meta?.status, e.body])).toEqual([
      ['superseded', 'Tabs over spaces.'],
      ['active', 'Spaces.'],
      ['active', 'Use pnpm.'],
    ])
  })
})

describe('retireKey and removeSession', () => {
  it('supersedes every active entry with the key, and only those', () => {
    expect(retireKey(CURATED, 'reply-style', (e) => e.body.includes('detailed'))).toBeNull()
    const out = retireKey(CURATED, 'reply-style')
    expect(out?.retired).toEqual([{ startLine: 3, endLine: 4 }])
    expect(scanEntries(out?.text ?? '').entries.map((e) => e.meta?.status)).toEqual(['superseded', 'active'])
    expect(retireKey(CURATED, 'other')).toBeNull()
  })

  it("removes a session's flushes, with the blank line before each", () => {
    const out = removeSession(DAY, 's1')
    expect(out?.removed).toEqual([
      { startLine: 1, endLine: 4, flushId: 'f1' },
      { startLine: 10, endLine: 13, flushId: null },
    ])
    expect(out?.text).toBe(
      '## 10:00:00 · agent main · session s2\n<!-- observed: 2026-11-28 | status: active | origin: agent -->\n- gamma\n',
    )
    expect(removeSession(DAY, 's3')).toBeNull()
  })
})
