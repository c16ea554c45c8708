import { describe, expect, it } from 'vitest'
import { splitLines } from '../text/lines.js'
import { transcriptText } from './transcript.js'

describe('transcriptText', () => {
  it.each([
    ['plain message', '{"role":"user","content":"hello there"}', 'user: hello there'],
    [
      'content parts',
      '{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"image"},"b"]}',
      'assistant: a b',
    ],
    ['wrapped message', '{"type":"message","message":{"role":"user","content":"wrapped"}}', 'user: wrapped'],
    ['newlines collapse', '{"role":"user","content":"line one\\n\\n  line two"}', 'user: line one line two'],
    ['metadata is skipped', '{"type":"session","id":"s1"}', ''],
    ['odd role is skipped', '{"role":"# heading","content":"x"}', ''],
    ['empty content is skipped', '{"role":"user","content":"   "}', ''],
  ])('%s', (_name, line, expected) => {
    expect(transcriptText(line).text).toBe(expected)
  })

  it('keeps one text line per JSONL line and counts malformed lines', () => {
    const jsonl = [
      '{"role":"user","content":"first"}',
      'not json',
      '',
      '[1,2]',
      '{"role":"assistant","content":"fourth\\r"}\r',
      '{"role":"user","content":"tail"}',
      '',
    ].join('\n')
    const out = transcriptText(jsonl)
    expect(splitLines(out.text)).toEqual(['user: first', '', '', '', 'assistant: fourth', 'user: tail'])
    expect(splitLines(out.text)).toHaveLength(splitLines(jsonl).length)
    expect(out).toMatchObject({ messages: 3, malformed: 2 })
  })

  it('never turns a message into a heading or a code fence', () => {
    const out = transcriptText('{"role":"user","content":"```js"}\n{"role":"user","content":"# title"}')
    expect(splitLines(out.text)).toEqual(['user: ```js', 'user: # title'])
  })
})
