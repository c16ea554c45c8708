/**
 * One client's event stream: writes SSE frames to the response body without ever letting a
 * slow client grow memory or slow the writer that published. While the body takes writes,
 * frames go straight into it; once it signals backpressure (the client stopped reading and
 * the socket and stream buffers are full), frames wait in a queue of at most `queue`; one
 * more closes the stream with a last `event: overflow`, so the client reconnects with its
 * Last-Event-ID and gets what it missed from the replay ring (or `reset`). A comment line
 * every `heartbeatMs` keeps proxies from closing an idle stream.
 */
import type { Writable } from 'node:stream'

/** Tells an EventSource to wait this long before reconnecting, in ms. */
const RETRY_MS = 2000

export const OVERFLOW_FRAME = `event: overflow\ndata: ${JSON.stringify({
  type: 'overflow',
  message: 'This client fell behind; reconnect with Last-Event-ID to resume',
})}\n\n`

const HEARTBEAT_FRAME = ': heartbeat\n\n'

export type EventStreamOptions = {
  /** The response body (a stream piped to the client). */
  body: Writable
  /** Frames that may wait for a slow client before its stream is closed with `overflow`. */
  queue: number
  heartbeatMs: number
  /** Called once when the stream ends (overflow, server close or the client leaving). */
  onEnd: () => void
}

export function openEventStream(opts: EventStreamOptions) {
  const { body } = opts
  const waiting: string[] = []
  let ended = false

  function flush(): void {
    while (waiting.length > 0 && !body.writableNeedDrain) body.write(waiting.shift())
  }

  /** Writes a frame, or queues it while the client is behind; `force`: past the cap (replay). */
  function send(frame: string, force = false): void {
    if (ended) return
    if (waiting.length === 0 && !body.writableNeedDrain) {
      body.write(frame)
      return
    }
    if (!force && waiting.length >= opts.queue) {
      // The overflow frame goes past the queue: it is the last thing this stream writes.
      waiting.length = 0
      body.write(OVERFLOW_FRAME)
      end()
      return
    }
    waiting.push(frame)
  }

  const heartbeat = setInterval(() => {
    if (waiting.length === 0 && !body.writableNeedDrain) body.write(HEARTBEAT_FRAME)
  }, opts.heartbeatMs)
  heartbeat.unref()

  /** Ends the stream (idempotent); queued frames are dropped. */
  function end(): void {
    if (ended) return
    ended = true
    clearInterval(heartbeat)
    waiting.length = 0
    body.off('drain', flush)
    body.end()
    opts.onEnd()
  }

  body.on('drain', flush)
  body.once('close', end)
  body.once('error', end)
  body.write(`retry: ${RETRY_MS}\n\n`)

  return { send, end, queued: () => waiting.length }
}

export type EventStream = ReturnType<typeof openEventStream>
