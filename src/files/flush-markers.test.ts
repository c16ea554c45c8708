import { describe, expect, it } from 'vitest'
import { askedOf, isSameFlush, notesSha256, parseMarkers } from './flush-markers.js'

const entry = (heading: string, id: string, notes: string[]) =>
  `${heading}\n<!-- mnemo:flush id=${id} lines=${notes.length} -->\n${notes.join('\n')}\n`

describe('parseMarkers', () => {
  it('reads each marker’s lines, the notes under it and its heading’s agent and session', () => {
    const text =
      '# Day\n\n' +
      entry('## 09:00:00 · agent ops · session s · 1', 'a', ['- one', '- two']) +
      '\n' +
      entry('## 10:00:00', 'b', ['- three'])
    expect(parseMarkers(text)).toEqual(
      new Map([
        [
          'a',
          {
            startLine: 3,
            endLine: 6,
            notesSha256: notesSha256('- one\n- two'),
            agent: 'ops',
            session: 's · 1',
            asked: null,
          },
        ],
        [
          'b',
          { startLine: 8, endLine: 10, notesSha256: notesSha256('- three'), agent: null, session: null, asked: null },
        ],
      ]),
    )
  })

  it('skips a marker whose notes are cut short, and reads no labels from a line that is no flush heading', () => {
    expect(parseMarkers('## 09:00:00\n<!-- mnemo:flush id=a lines=2 -->\n- one\n- tw').size).toBe(0)
    const forged = parseMarkers('## Notes · agent ops\n<!-- mnemo:flush id=a lines=1 -->\n- x\n').get('a')
    expect(forged).toMatchObject({ startLine: 1, agent: null, session: null })
    expect(parseMarkers('<!-- mnemo:flush id=top lines=1 -->\n- x\n').get('top')).toMatchObject({ startLine: 0 })
  })
})

describe('isSameFlush', () => {
  const found = parseMarkers(entry('## 09:00:00 · agent ops · session s-1', 'a', ['- one', '- two'])).get('a')!
  it.each([
    ['the same notes and labels', '- one\n- two', { agentId: 'ops', sessionId: 's-1' }, true],
    ['the same notes with CRLF', '- one\r\n- two', {}, true],
    ['no labels named', '- one\n- two', {}, true],
    ['other notes', '- one\n- three', { agentId: 'ops' }, false],
    ['another session', '- one\n- two', { sessionId: 's-2' }, false],
    ['another agent', '- one\n- two', { agentId: 'dev' }, false],
  ])('%s → %s', (_what, notes, labels: { agentId?: string; sessionId?: string }, same) => {
    expect(isSameFlush(found, askedOf(labels, notes))).toBe(same)
  })
})

describe('a flush that left duplicates out', () => {
  // It asked for two notes and wrote one: its marker keeps what it asked for.
  const sent = notesSha256('- dup\n- fresh')
  const found = parseMarkers(
    `## 09:00:00\n<!-- mnemo:flush id=a lines=1 asked=${sent.slice(0, 16)} -->\n- fresh\n`,
  ).get('a')!

  it.each([
    // [what, the notes sent, the notes it would write now, a replay]
    ['the same notes sent, the same left out', '- dup\n- fresh', '- fresh', true],
    ['the same notes sent, none left out now', '- dup\n- fresh', '- dup\n- fresh', true],
    ['other notes sent', '- other\n- fresh', '- other\n- fresh', false],
  ])('%s → %s', (_what, notes, written, same) => {
    expect(isSameFlush(found, askedOf({ asked: notesSha256(notes) }, written))).toBe(same)
  })
})
