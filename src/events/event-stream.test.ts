import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { OVERFLOW_FRAME, openEventStream } from './event-stream.js'

/** A body whose client reads nothing: with a 1-byte buffer, every write signals backpressure. */
function stalledBody() {
  const body = new PassThrough({ highWaterMark: 1 })
  const read = () => {
    let out = ''
    for (let chunk: Buffer | null; (chunk = body.read() as Buffer | null) !== null;) out += chunk.toString()
    return out
  }
  return { body, read }
}

const frame = (n: number) => `id: b-${n}\nevent: file.written\ndata: {}\n\n`

describe('an event stream', () => {
  it('queues frames while the client is behind and sends them in order once it reads', async () => {
    const { body, read } = stalledBody()
    let ended = 0
    const stream = openEventStream({ body, queue: 3, heartbeatMs: 60_000, onEnd: () => ended++ })
    for (const n of [1, 2, 3]) stream.send(frame(n))
    expect(stream.queued()).toBe(3)
    let got = ''
    // Each read empties the body and lets the queue move on ('drain').
    while (!got.includes(frame(3))) {
      got += read()
      await new Promise((r) => setImmediate(r))
    }
    expect(got).toBe(`retry: 2000\n\n${frame(1)}${frame(2)}${frame(3)}`)
    expect(ended).toBe(0)
    stream.end()
    expect(ended).toBe(1)
  })

  it('ends with an overflow event when one more frame than the queue holds arrives', () => {
    const { body, read } = stalledBody()
    let ended = 0
    const stream = openEventStream({ body, queue: 3, heartbeatMs: 60_000, onEnd: () => ended++ })
    for (const n of [1, 2, 3]) stream.send(frame(n))
    expect(stream.queued()).toBe(3)
    expect(ended).toBe(0)
    stream.send(frame(4))
    expect(ended).toBe(1)
    expect(stream.queued()).toBe(0)
    expect(body.writableEnded).toBe(true)
    // What the client gets: what was written before it fell behind, then overflow; the queue is dropped.
    expect(read()).toBe(`retry: 2000\n\n${OVERFLOW_FRAME}`)
    stream.send(frame(5))
    expect(read()).toBe('')
    expect(ended).toBe(1)
  })

  it('takes a replay past the cap (force), bounded by the replay window instead', () => {
    const { body } = stalledBody()
    let ended = 0
    const stream = openEventStream({ body, queue: 2, heartbeatMs: 60_000, onEnd: () => ended++ })
    for (const n of [1, 2, 3, 4, 5]) stream.send(frame(n), true)
    expect(stream.queued()).toBe(5)
    expect(ended).toBe(0)
    stream.send(frame(6))
    expect(ended).toBe(1)
  })

  it('ends when the body closes (the client left)', async () => {
    const { body } = stalledBody()
    let ended = 0
    openEventStream({ body, queue: 2, heartbeatMs: 60_000, onEnd: () => ended++ })
    body.destroy()
    await new Promise((r) => setImmediate(r))
    expect(ended).toBe(1)
  })
})
