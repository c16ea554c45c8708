import { describe, expect, it } from 'vitest'
import { blankFlushMarkers, introducesMarker } from './content-rules.js'

const marker = (id: string, lines = 1) => `<!-- mnemo:flush id=${id} lines=${lines} -->`

describe('introducesMarker', () => {
  const day = `## 10:00:00\n${marker('s:1')}\n- a note\n`

  it.each([
    ['plain text', '- a note\n', null, false],
    ['a marker in a new file', `${marker('s:9')}\n`, null, true],
    ['a marker in the middle of a line', `see <!-- mnemo:flush id=x lines=1 --> here`, day, true],
    ['the same file written back', day, day, false],
    ['the file edited, its marker kept', day.replace('a note', 'an edited note'), day, false],
    ['the file with its marker removed', '## 10:00:00\n- a note\n', day, false],
    ['a second copy of a kept marker', `${day}${marker('s:1')}\n`, day, true],
    ['a marker whose line count was changed', day.replace('lines=1', 'lines=2'), day, true],
    ['another marker added', `${day}${marker('s:2')}\n`, day, true],
  ])('%s → %s', (_name, next, current, expected) => {
    expect(introducesMarker(next, current)).toBe(expected)
  })
})

describe('blankFlushMarkers', () => {
  it.each([
    ['no marker', '## 10:00:00\n- a note\n', '## 10:00:00\n- a note\n'],
    ['a marker line', `## 10:00:00\n${marker('s:1')}\n- a note\n`, '## 10:00:00\n\n- a note\n'],
    ['markers on the first and last line', `${marker('a')}\nx\n${marker('b', 2)}`, '\nx\n'],
    ['a marker inside a line is text', `see ${marker('x')} here\n`, `see ${marker('x')} here\n`],
    ['a malformed marker is text', '<!-- mnemo:flush id=a b lines=1 -->\n', '<!-- mnemo:flush id=a b lines=1 -->\n'],
  ])('%s', (_name, text, expected) => {
    const blanked = blankFlushMarkers(text)
    expect(blanked).toBe(expected)
    expect(blanked.split('\n').length).toBe(text.split('\n').length)
  })
})
