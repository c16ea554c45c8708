/**
 * The stream every request body is read through (issue 30; installed by
 * http/plugins/body-intake.ts in preParsing, so Fastify's parsers and the stream routes read
 * it instead of the request): it passes the bytes on unchanged, has each chunk held as it
 * arrives, and fails the body — with the error its caller gives, which Fastify turns into the
 * answer — when a chunk is refused, when the body has not ended by its deadline, or when no
 * byte arrives for the idle time while the reader waits for one. Once failed it reads no more
 * of the request: the caller closes the connection rather than drain the rest.
 */
import { Readable } from 'node:stream'

export type BodyMeterOptions = {
  /** Time left until the whole body must have arrived, in ms (from the request's start). */
  deadlineMs: number
  /**
   * Longest wait for the next byte while the reader wants one, in ms. A reader that is slow
   * itself (backpressure: an import writing files) is not the client's stall.
   */
  idleMs: number
  /** Holds `bytes` more of the body; returns the error that refuses them, or null. */
  take(bytes: number): Error | null
  /**
   * The error of a body that did not arrive in time, or null when it did after all (its
   * bytes wait unread behind a slow reader): then the body is no longer timed.
   */
  timedOut(which: 'deadline' | 'idle'): Error | null
}

export function meterBody(source: Readable, opts: BodyMeterOptions): Readable {
  let timing = true
  let reading = false
  let stopped = false
  let idle: NodeJS.Timeout | undefined
  // Unreferenced: an open request keeps the process alive by its socket, not by its timers.
  const deadline = setTimeout(() => expire('deadline'), opts.deadlineMs).unref()

  const out = new Readable({
    read() {
      if (stopped) return
      if (!reading) {
        reading = true
        source.on('data', onData)
      }
      source.resume()
      armIdle()
    },
    destroy(err, done) {
      stop()
      done(err)
    },
  })
  // Who reads the body listens for its errors; this keeps a failure of a body nobody reads
  // (answered before it was parsed, or past Fastify's body limit) from crashing the process.
  out.on('error', () => {})
  // Not 'data': listening for these does not start reading the request, so a body answered
  // unread is still discarded by Node, and its end still stops the timers.
  source.once('end', onEnd)
  source.once('error', fail)
  source.once('close', onClose)

  function armIdle() {
    clearTimeout(idle)
    if (timing) idle = setTimeout(() => expire('idle'), opts.idleMs).unref()
  }
  function expire(which: 'deadline' | 'idle') {
    const err = opts.timedOut(which)
    if (err) return fail(err)
    timing = false
    clearTimeout(deadline)
    clearTimeout(idle)
  }
  function onData(chunk: Buffer) {
    clearTimeout(idle)
    const refused = opts.take(chunk.length)
    if (refused) return fail(refused)
    if (out.push(chunk)) armIdle()
    // The reader is full: wait for it (read() resumes), and do not count it as the client's stall.
    else source.pause()
  }
  function onEnd() {
    stop()
    out.push(null)
  }
  function onClose() {
    if (source.readableEnded) stop()
    else fail(new Error('The client closed the connection before the body ended'))
  }
  /** Stops the timers and the reading (the rest of the body stays unread). */
  function stop() {
    if (stopped) return
    stopped = true
    clearTimeout(deadline)
    clearTimeout(idle)
    source.off('data', onData)
    source.off('end', onEnd)
    source.off('error', fail)
    source.off('close', onClose)
    if (reading && !source.readableEnded) source.pause()
  }
  function fail(err: Error) {
    if (!out.destroyed && !out.readableEnded) out.destroy(err)
    else stop()
  }
  return out
}
