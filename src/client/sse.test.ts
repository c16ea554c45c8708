import { describe, expect, it } from 'vitest'
import { parseFrames } from './sse.js'

describe('parseFrames', () => {
  it('reads events, ids and multi-line data, skips comments, and keeps an incomplete frame', () => {
    const text =
      ': heartbeat\n\n' +
      'id: p-main-1\ndata: {"type":"file.written"}\n\n' +
      'event: ready\ndata: {"a":1}\ndata: {"b":2}\n\n' +
      'id: p-main-2\ndata: {"ty'
    const { frames, rest } = parseFrames(text)
    expect(frames).toEqual([
      { event: 'message', id: 'p-main-1', data: '{"type":"file.written"}' },
      { event: 'ready', id: null, data: '{"a":1}\n{"b":2}' },
    ])
    expect(rest).toBe('id: p-main-2\ndata: {"ty')
  })

  it('takes CRLF line ends and a field without a space after the colon', () => {
    expect(parseFrames('event:reset\r\ndata:{}\r\n\r\n').frames).toEqual([{ event: 'reset', id: null, data: '{}' }])
  })
})
