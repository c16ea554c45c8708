/**
 * Server-Sent Events read with fetch, since EventSource cannot send the Authorization
 * header and the token must never be in a URL. parseFrames is the text/event-stream grammar
 * the console needs: `event:`, `data:` (lines joined with \n) and `id:` fields, frames ended
 * by a blank line, comment lines (heartbeats) ignored.
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

/**
 * Reads a stream until it ends or `signal` aborts, handing each frame to `onFrame`. Throws
 * when the answer is not a 200 event stream (the caller shows why and may retry).
 */
export async function readEventStream(
  url: string,
  headers: Record<string, string>,
  onFrame: (frame: SseFrame) => void,
  signal: AbortSignal,
): Promise<void> {
  const res = await fetch(url, { headers: { ...headers, accept: 'text/event-stream' }, signal })
  if (!res.ok || !res.body) {
    const body = (await res.json().catch(() => ({}))) as { code?: string; message?: string }
    throw new Error(`${body.code ?? `HTTP_${res.status}`}: ${body.message ?? res.statusText}`)
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
  let buffered = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return
    const { frames, rest } = parseFrames(buffered + value)
    buffered = rest
    for (const frame of frames) onFrame(frame)
  }
}
