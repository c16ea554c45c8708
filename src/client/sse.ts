/**
 * The text/event-stream grammar GET /events needs (Mnemo.events reads it with fetch, since
 * EventSource cannot send the Authorization header and a token must never be in a URL):
 * `event:`, `data:` (lines joined with \n) and `id:` fields, frames ended by a blank line,
 * comment lines (heartbeats) ignored.
 */

export type SseFrame = { event: string; data: string; id: string | null }

/** The complete frames at the start of `text`, and what is left of an incomplete one. */
export function parseFrames(text: string): { frames: SseFrame[]; rest: string } {
  const frames: SseFrame[] = []
  const normalised = text.replace(/\r\n?/g, '\n')
  const blocks = normalised.split('\n\n')
  const rest = blocks.pop() ?? ''
  for (const block of blocks) {
    let event = 'message'
    let id: string | null = null
    const data: string[] = []
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue
      const colon = line.indexOf(':')
      const field = colon === -1 ? line : line.slice(0, colon)
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '')
      if (field === 'event') event = value
      else if (field === 'data') data.push(value)
      else if (field === 'id') id = value
    }
    if (data.length > 0 || event !== 'message') frames.push({ event, data: data.join('\n'), id })
  }
  return { frames, rest }
}
